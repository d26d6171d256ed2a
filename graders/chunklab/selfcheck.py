"""The self-check: a student's own code against the public checks only, in this process.

In a notebook: `self_check("char_chunk", globals())` checks what the kernel
holds. `chunklab check` runs the same steps on a `.py` file or a notebook.
Each call into the student's code has a time limit where the platform allows
one, so a loop that never ends becomes a reported failure, not a hang.
"""

from __future__ import annotations

import contextlib
import io
import signal
import time
from collections.abc import Iterable, Mapping
from threading import current_thread, main_thread
from typing import Any

from chunklab.lessons import Lesson, get_lesson
from chunklab.running.in_process import InProcessBackend
from chunklab.running.pytest_run import run_suite
from chunklab.running.submission_proxy import Backend, CallTimedOut, SubmissionProxy
from chunklab.scoring.report import GradeReport, Problem
from chunklab.writing.check_text import check_text

CALL_SECONDS = 10.0
# Once one call has run out of time, the code likely loops; later calls get this long.
CALL_SECONDS_AFTER_TIMEOUT = 1.0
LOAD_SECONDS = 30.0


class TimeLimitedBackend:
    """Wraps a backend so that a request running past its limit raises `CallTimedOut`.

    It uses SIGALRM, so it only limits time on the main thread of a POSIX
    process (a terminal, or a Jupyter kernel); elsewhere requests run unlimited.
    A KeyboardInterrupt that the submission's session turned into an answer is
    raised again, so interrupting a self-check stops it.
    """

    def __init__(
        self, backend: Backend, seconds: float, after_timeout: float | None = None
    ) -> None:
        self.backend = backend
        self.seconds = seconds
        self.after_timeout = seconds if after_timeout is None else after_timeout
        self.timed_out = False
        self.interrupted = False

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        limit = self.after_timeout if self.timed_out else self.seconds
        answer = self.timed_request(message, limit)
        if answer.get("raised", {}).get("type") == "KeyboardInterrupt":
            self.interrupted = True
            raise KeyboardInterrupt
        return answer

    def timed_request(self, message: dict[str, Any], limit: float) -> dict[str, Any]:
        if not hasattr(signal, "setitimer") or current_thread() is not main_thread():
            return self.backend.request(message)
        fired = False

        def on_alarm(signum: int, frame: object) -> None:
            nonlocal fired
            fired = True
            raise CallTimedOut(too_long(limit))

        previous = signal.signal(signal.SIGALRM, on_alarm)
        # The alarm repeats, in case the student's code catches the first one and keeps going.
        signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
        try:
            answer = self.backend.request(message)
        except CallTimedOut:
            fired = True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if fired:
            self.timed_out = True
            raise CallTimedOut(too_long(limit))
        return answer


def too_long(limit: float) -> str:
    unit = "second" if limit == 1 else "seconds"
    return (
        f"It ran for more than {limit:g} {unit} and was stopped: look for a loop that never ends."
    )


def missing_definition(
    lesson: Lesson, defined: Iterable[str], where: str, advice: str
) -> Problem | None:
    if lesson.entry_point in set(defined):
        return None
    kind = "class" if lesson.entry_kind == "class" else "function"
    return Problem(
        "missing_definition", f"{where} does not define the {kind} {lesson.entry_point}; {advice}"
    )


def run_public_checks(
    lesson: Lesson,
    backend: Backend,
    *,
    submission: str,
    problem: Problem | None = None,
    warnings: tuple[Problem, ...] = (),
) -> GradeReport:
    """The public checks' outcomes as a report; with a `problem`, a report of status error.

    The suite runs even then, against an empty namespace that answers at once, so the
    report still knows the public checks' full marks.
    """
    began = time.monotonic()
    if problem is not None:
        backend = InProcessBackend()
    limited = TimeLimitedBackend(backend, CALL_SECONDS, CALL_SECONDS_AFTER_TIMEOUT)
    tests = tuple(run_suite(lesson, SubmissionProxy(limited), visible_only=True))
    if limited.interrupted:
        # pytest stops at an interrupt but reports what ran; a partial score would mislead.
        raise KeyboardInterrupt
    return GradeReport(
        lesson=lesson.id,
        submission=submission,
        status="error" if problem else "graded",
        tests=() if problem else tests,
        errors=(problem,) if problem else (),
        warnings=warnings,
        duration_s=time.monotonic() - began,
        max_score=sum(test.max_score for test in tests),
        isolation="none (self-check)",
    )


def check_namespace(
    lesson_id: str, namespace: Mapping[str, Any], submission: str = "notebook"
) -> GradeReport:
    """Check the function or class a namespace (a kernel's `globals()`) defines."""
    lesson = get_lesson(lesson_id)
    defined = [name for name, value in namespace.items() if callable(value)]
    problem = missing_definition(
        lesson,
        defined,
        "the notebook",
        "run the exercise cell (keeping the name the stub gives), then run the self-check again.",
    )
    return run_public_checks(
        lesson, InProcessBackend(dict(namespace)), submission=submission, problem=problem
    )


def load_cells(backend: Backend, cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the submission's cells; what they print is theirs, not part of the result."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return TimeLimitedBackend(backend, LOAD_SECONDS).request({"op": "load", "cells": cells})


def self_check(lesson_id: str, namespace: Mapping[str, Any]) -> None:
    """Print the self-check of the lesson's function or class, as defined in `namespace`."""
    print(check_text(check_namespace(lesson_id, namespace)))
