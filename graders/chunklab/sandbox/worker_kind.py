"""What the backend needs of a worker and of what makes workers, whichever kind they are.

Grading runs submissions in the sandbox's worker processes, made by its
zygote; the self-check runs them in the student's own process, with stand-ins
that answer the same requests. The backend drives both through these shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from chunklab.sandbox.call_watch import CallLimit, Reading


class PrintedOutput(Protocol):
    @property
    def was_cut(self) -> bool: ...


class Worker(Protocol):
    """One submission running: requests in, answers out, each call within its limit."""

    @property
    def alive(self) -> bool: ...

    @property
    def output(self) -> PrintedOutput: ...

    def watch_next(
        self, limit: CallLimit | Callable[[], CallLimit], *, from_start: bool = False
    ) -> None: ...

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]: ...

    def send(self, message: dict[str, Any], timeout: float) -> None: ...

    def answer(self, timeout: float) -> dict[str, Any]: ...

    def new_test(self) -> None:
        """A new grader test starts: the answers of the one before are no longer held."""
        ...

    def own_mark(self) -> Reading:
        """What the worker has spent so far, for `own_seconds_since`."""
        ...

    def own_seconds_since(self, mark: Reading) -> float:
        """The worker's own time since `mark`, counted as a call's own time is."""
        ...

    def spent_since(self, mark: Reading) -> tuple[float, float]:
        """`own_seconds_since`, and the time by the clock since `mark` less the time the
        worker waited for a CPU, both from one look at the worker."""
        ...

    def cpu_seconds_since(self, mark: Reading) -> float | None:
        """The CPU every thread and process of the worker used since `mark`, where known."""
        ...

    def printed(self) -> str: ...

    def kill(self) -> None: ...


class Workers(Protocol):
    """Makes a fresh worker for a submission (the zygote, or the self-check's stand-in)."""

    def spawn(self) -> Worker: ...
