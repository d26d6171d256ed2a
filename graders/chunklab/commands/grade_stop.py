"""Ctrl-C during `chunklab grade`: the work under way stops, and what was graded is kept."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterable, Iterator

from chunklab.errors import GradingBrokeOffError
from chunklab.scoring.report import GradeReport


class GradingInterrupted(KeyboardInterrupt):
    """Ctrl-C, raised by the grader's own handler.

    A subclass, because CPython notes a plain KeyboardInterrupt that escapes
    code run by `exec` (pytest and dataclasses run some) as unhandled, and then
    ends the process by SIGINT at exit even though it was handled here.
    """


class StopRequest:
    """Ctrl-C during grading: noted, and raised to stop the work under way.

    The grader suites run under pytest, which turns a KeyboardInterrupt into an
    early end of its session; reports that come back after the request may
    therefore be incomplete, and are never kept.
    """

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True
        raise GradingInterrupted

    @contextlib.contextmanager
    def on_interrupt(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def take_until_stopped(
    results: Callable[[], Iterable[tuple[int, GradeReport]]],
    take: Callable[[int, GradeReport], object],
) -> tuple[bool, GradingBrokeOffError | None]:
    """Each report the grading gives, until it ends or Ctrl-C stops it.

    Returns whether it was interrupted, and the error that broke the grading off
    (a lost Dask scheduler), if any: what was taken is written either way.
    """
    stop = StopRequest()
    try:
        with stop.on_interrupt():
            for number, report in results():
                if stop.requested:
                    break  # finished while stopping, perhaps cut short: graded again on resume
                take(number, report)
    except KeyboardInterrupt:
        stop.requested = True
    except GradingBrokeOffError as error:
        return stop.requested, error
    return stop.requested, None
