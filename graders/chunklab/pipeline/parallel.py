"""Grades many submissions at once: one grading process per job, each with its own sandbox.

Work is shared out one submission at a time (see `work_pool`): each grading
process runs pytest sessions of one lesson whose slots take their
submission only when the session reaches them, so a slow submission holds
up no other that a free process could grade. A session's results come back
when it ends. A grading process that dies is replaced, and only the
submissions it had taken are reported as errors.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chunklab.kit import Kit
from chunklab.pipeline.garbage import collect_garbage_per_session
from chunklab.pipeline.pool import WorkPool, grades_here
from chunklab.pipeline.session import FedSession, GradingSession, Take, grade_submissions
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote
from chunklab.scoring.report import GradeReport, error_report, problem_of

if TYPE_CHECKING:  # not on every platform: only the names are needed
    from multiprocessing.context import ForkContext, ForkServerContext, SpawnContext

Result = tuple[int, GradeReport]
StartMethod = Literal["fork", "forkserver", "spawn"]
Batch = list[tuple[int, SubmissionPath]]
# Slots of one pytest session: enough to spread pytest's start-up, few enough that an
# interrupted run loses little (a session's results come back when it ends).
SESSION_SLOTS = 20


def grade_batch_safely(
    batch: Batch, lesson_id: str | None, session: GradingSession
) -> list[Result]:
    """Reports for a batch; a defect that stops the batch is retried one submission at a time."""
    try:
        reports = grade_submissions([item for _, item in batch], lesson_id, session)
        pairs = zip(batch, reports, strict=True)
        return [(index, report) for (index, _), report in pairs]
    except Exception as error:
        if len(batch) == 1:
            return [(batch[0][0], failure_report(batch[0][1], error))]
        return [result for one in batch for result in grade_batch_safely([one], lesson_id, session)]


def grade_fed(take: Take, lesson_id: str | None, session: GradingSession) -> list[Result] | None:
    """Reports of one session's submissions, taken as it goes; None when none was left."""
    fed = FedSession(take, lesson_id, session)
    try:
        reports = fed.grade(SESSION_SLOTS)
    except Exception:
        if not fed.taken:
            raise  # nothing to grade again: the work could not even be taken
        # A defect that stops the session: each submission it took is graded on its own.
        return [
            result for one in fed.taken for result in grade_batch_safely([one], lesson_id, session)
        ]
    if not fed.taken:
        return None
    return list(reports.items())


def failure_report(item: SubmissionPath, error: Exception) -> GradeReport:
    """The report of a submission whose grading failed (a defect, a worker lost on the way)."""
    return error_report(item.lesson, item.display, problem_of(error), student=item.student)


def grade_in_this_process(
    items: Batch, lesson_id: str | None, kit: Kit, limits: Limits, zygote: Zygote | None = None
) -> Iterator[Result]:
    """Reports of `items`, graded here; with the `zygote` started for these limits, if given."""
    pool = WorkPool(items, lesson_id)
    session = GradingSession(kit, limits, zygote)
    try:
        while (results := grade_fed(pool.take, lesson_id, session)) is not None:
            for index, report in results:
                pool.finish(index)
                yield index, report
            if pool.has_pending():
                gc.collect()  # as a grading process does between sessions
    finally:
        session.close()


def grading_process(
    channel: Any, kit_root: str, limits: Limits, lesson_id: str | None, core: int
) -> None:
    # This process and its workers (forked from a zygote it starts) share one CPU:
    # a call into a worker hands over to it on the same CPU, which is faster.
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[core % len(cores)]})
    collect_garbage_per_session()
    session = GradingSession(Kit(Path(kit_root)), limits)

    def take(lesson: str | None) -> tuple[int, SubmissionPath, int] | None:
        channel.send(("want", lesson))
        return channel.recv()

    try:
        while (results := grade_fed(take, lesson_id, session)) is not None:
            channel.send(("done", results))
            gc.collect()
    finally:
        session.close()


def start_method() -> StartMethod:
    """`fork` is fastest, but only safe while this process runs no other thread."""
    import multiprocessing  # only where several processes grade: one submission needs none

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def process_context() -> ForkContext | ForkServerContext | SpawnContext:
    """The context of `start_method()`, asked for by name: each kind has its own `Process`."""
    import multiprocessing

    method = start_method()
    if method == "fork":
        return multiprocessing.get_context("fork")
    if method == "forkserver":
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


@dataclass
class GradingProcess:
    """A grading process as the parent sees it: its channel and the submissions it holds."""

    process: Any
    channel: Any
    held: dict[int, SubmissionPath] = field(default_factory=dict)
    # Told that no work is left: its end is expected.
    stopping: bool = False

    def reply(self, handout: tuple[int, SubmissionPath, int] | None, *, last: bool = False) -> None:
        with contextlib.suppress(OSError):
            self.channel.send(handout)
        if handout is not None:
            self.held[handout[0]] = handout[1]
        self.stopping = self.stopping or last


def grade_in_parallel(
    items: Batch, lesson_id: str | None, kit: Kit, limits: Limits, jobs: int
) -> Iterator[Result]:
    from multiprocessing import connection

    context = process_context()
    pool = WorkPool(items, lesson_id)
    # One two-way channel per grading process: it asks for work and hands back results.
    running: dict[Any, GradingProcess] = {}
    waiting: list[GradingProcess] = []  # free for any lesson, waiting for the input to move on
    started = 0

    def start() -> None:
        nonlocal started
        ours, theirs = context.Pipe()
        process = context.Process(
            target=grading_process,
            daemon=True,
            args=(theirs, str(kit.root), limits, lesson_id, started),
        )
        started += 1
        process.start()
        theirs.close()
        running[ours] = GradingProcess(process, ours)

    def serve(each: GradingProcess, lesson: str | None) -> None:
        handout = pool.take(lesson)
        if handout is None and lesson is None and pool.has_pending():
            waiting.append(each)
        else:
            each.reply(handout, last=handout is None and lesson is None)

    def ended(each: GradingProcess) -> Iterator[Result]:
        """A grading process's channel closed: what it held is lost; a new one goes on."""
        del running[each.channel]
        if each in waiting:
            waiting.remove(each)
        each.process.join(timeout=5)
        error = RuntimeError("the grading process stopped while grading this submission")
        for index, item in each.held.items():
            pool.finish(index)
            yield index, failure_report(item, error)
        if not each.stopping and not pool.done:
            start()

    for _ in range(min(jobs, len(items))):
        start()
    try:
        while not pool.done:
            for ready in connection.wait(list(running), timeout=0.5):
                each = running[ready]
                try:
                    kind, payload = each.channel.recv()
                except (EOFError, OSError):
                    yield from ended(each)
                    continue
                if kind == "want":
                    serve(each, payload)
                    continue
                for index, report in payload:
                    each.held.pop(index, None)
                    pool.finish(index)
                    yield index, report
                for free in waiting[:]:
                    waiting.remove(free)
                    serve(free, None)
    finally:
        for each in running.values():
            each.reply(None, last=True)
        for each in running.values():
            each.process.join(timeout=5)
            if each.process.is_alive():
                each.process.kill()


def grade_many(
    items: Batch,
    lesson_id: str | None,
    kit: Kit,
    limits: Limits,
    jobs: int,
    zygote: Zygote | None = None,
) -> Iterator[Result]:
    """(index, report) for every item, in the order they finish.

    `zygote`, started already for `limits`, is used where this process grades (`grades_here`).
    """
    if grades_here(len(items), jobs):
        return grade_in_this_process(items, lesson_id, kit, limits, zygote)
    return grade_in_parallel(items, lesson_id, kit, limits, jobs)
