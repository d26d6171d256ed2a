"""Watches a worker while the grader waits for its answer: its own time, its memory's growth.

A call's own time is the wall-clock time it took, less the time its worker
waited for a CPU (Linux counts that wait in `/proc/<pid>/schedstat`). So a
busy machine does not make a call slower by this measure, and a tight limit
stays fair; a call that sleeps or waits still spends its own time. Where that
count cannot be read, own time is wall-clock time.

Memory: a call whose worker keeps growing fast enough to reach the memory
limit before its time is up is stopped then, not when it reaches the limit.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

# The first look at a worker comes this late: most calls have answered by then, so
# watching them costs nothing. Later looks come at this interval.
FIRST_LOOK = 0.01
LOOK_EVERY = 0.01
SOONEST_LOOK = 0.001
# A worker is judged to grow without end only after its resident memory has grown at
# each look for this long and by this much in one call: a correct call may take memory
# fast, for a moment.
GROWTH_WINDOW = 0.1
GROWTH_MB = 64


@dataclass(frozen=True)
class CallLimit:
    """How long a call may take: its own time, and a wall-clock ceiling that caps it."""

    own_seconds: float
    memory_mb: int


def out_of_own_time() -> str:
    """What a student reads when a call ran out of its own time.

    No figure: a call's own limit follows the reference's time on this machine,
    and the same code must get the same feedback wherever it is graded.
    """
    return (
        "Your code did not finish in time: it ran far longer than this input needs "
        "(look for a loop that never ends, or for work that grows with the square of the "
        "text, such as slicing or searching it anew for every chunk)."
    )


class Verdict(Exception):
    """Why a watched call was stopped; the message is for the student."""


class ProcFiles:
    """The worker's `schedstat` and `statm`, opened once and read again at each look."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        # Opened at the first look: most workers answer every call before one is needed.
        self.fds: dict[str, int | None] = {}
        self.page_mb = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0

    def _fd(self, name: str) -> int | None:
        if name not in self.fds:
            try:
                self.fds[name] = os.open(f"/proc/{self.pid}/{name}", os.O_RDONLY)
            except OSError:
                self.fds[name] = None
        return self.fds[name]

    def run_delay(self) -> float | None:
        """Seconds the worker has waited for a CPU since it started, if the system says."""
        fields = self._read(self._fd("schedstat"))
        return int(fields[1]) / 1e9 if len(fields) >= 2 else None

    def resident_mb(self) -> float | None:
        """The worker's resident memory (what it has filled, not only reserved)."""
        fields = self._read(self._fd("statm"))
        return int(fields[1]) * self.page_mb if len(fields) >= 2 and self.page_mb else None

    @staticmethod
    def _read(fd: int | None) -> list[bytes]:
        if fd is None:
            return []
        try:
            return os.pread(fd, 128, 0).split()
        except OSError:
            return []

    def close(self) -> None:
        for fd in self.fds.values():
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fds = {name: None for name in self.fds}


class CallWatch:
    """One call's own time and memory, looked at while the grader waits for its answer."""

    def __init__(
        self,
        files: ProcFiles,
        limit: CallLimit | Callable[[], CallLimit],
        *,
        from_start: bool = False,
    ) -> None:
        """`limit` may be given as a function: it is then worked out at the first look only,
        since most calls have answered by then. `from_start`: own time is counted from
        now, not from the first look (for a worker known to spin, watched closely)."""
        self.files = files
        self._limit = limit
        # Own time is counted from the first look (the time before it is not charged).
        self.first_look: tuple[float, float] | None = None
        self.growth: list[tuple[float, float]] = []
        self.spent = 0.0  # own time at the last look
        if from_start:
            self.first_look = (time.monotonic(), files.run_delay() or 0.0)

    @property
    def limit(self) -> CallLimit:
        if not isinstance(self._limit, CallLimit):
            self._limit = self._limit()
        return self._limit

    def next_look(self) -> float:
        """Seconds until the next look: no later than when the call's own time may run out."""
        if self.first_look is None:
            return FIRST_LOOK
        return max(SOONEST_LOOK, min(LOOK_EVERY, self.limit.own_seconds - self.spent))

    def look(self, now: float, deadline: float) -> None:
        """Raise `Verdict` when the call has spent its own time or grows past hope."""
        delay = self.files.run_delay()
        if self.first_look is None:
            self.first_look = (now, delay or 0.0)
            return self._watch_memory(now, deadline)
        self.spent = self.own_time(now, delay)
        if self.spent >= self.limit.own_seconds:
            raise Verdict(out_of_own_time())
        self._watch_memory(now, deadline)

    def own_time(self, now: float, delay: float | None) -> float:
        assert self.first_look is not None
        since, delay_then = self.first_look
        waited = (delay - delay_then) if delay is not None else 0.0
        return now - since - waited

    def _watch_memory(self, now: float, deadline: float) -> None:
        """Stop a call whose memory grows steadily enough to pass the limit before its deadline.

        Resident memory is what the worker has filled; the address space the limit
        bounds is always at least that, so this never stops a call sooner than the
        limit itself would.
        """
        size = self.files.resident_mb()
        if size is None:
            return
        if self.growth and size <= self.growth[-1][1]:
            self.growth = []  # growth that pauses is not a runaway
        self.growth.append((now, size))
        first_time, first_size = self.growth[0]
        span = now - first_time
        if span < GROWTH_WINDOW or size - first_size < GROWTH_MB:
            return
        rate = (size - first_size) / span
        limit = self.limit.memory_mb
        if size + rate * (deadline - now) > limit:
            raise Verdict(
                f"Your code kept taking more memory ({size:.0f} MB, growing by "
                f"{rate:.0f} MB a second) and would have run out of its {limit} MB before "
                "its time was up: look for a loop that keeps adding to a list, or for a "
                "function that calls itself on a copy of the rest of the text."
            )


@cache
def counts_cpu_wait() -> bool:
    """Whether this system tells how long a process waited for a CPU (Linux does)."""
    return os.path.exists("/proc/self/schedstat")
