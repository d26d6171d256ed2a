"""Grades many submissions at once: one grading process per job, each with its own sandbox.

Submissions travel in small batches (one pytest session per lesson in a
batch); results come back as each batch finishes. A grading process that
dies is replaced, and only the batch it held is reported as errors.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chunklab.errors import ChunklabError
from chunklab.grading import GradingSession, grade_submissions
from chunklab.kit import Kit
from chunklab.lessons import lesson_named_in
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport, Problem

Result = tuple[int, dict[str, Any]]
Batch = list[tuple[int, SubmissionPath]]
# Small enough that an interrupted run loses little, large enough to spread pytest's start-up.
BATCH_SIZE = 20
# Batches are grouped from one stretch of the input at a time: long enough that each
# lesson fills whole batches and few stretches end (where a job may wait for another),
# short enough that the reports waiting to be printed in input order stay few.
WINDOW_BATCHES = 24


def grade_batch_safely(
    batch: Batch, lesson_id: str | None, session: GradingSession
) -> list[Result]:
    """Reports for a batch; a defect that stops the batch is retried one submission at a time."""
    try:
        reports = grade_submissions([item for _, item in batch], lesson_id, session)
        pairs = zip(batch, reports, strict=True)
        return [(index, report.to_json()) for (index, _), report in pairs]
    except Exception as error:
        if len(batch) == 1:
            return [(batch[0][0], failure_report(batch[0][1], error))]
        return [result for one in batch for result in grade_batch_safely([one], lesson_id, session)]


def failure_report(item: SubmissionPath, error: Exception) -> dict[str, Any]:
    if isinstance(error, ChunklabError):
        problem = Problem(error.kind, str(error))
    else:
        problem = Problem(
            "internal",
            f"the grader failed on this submission "
            f"({type(error).__name__}: {error}); grade it again, and report it "
            "to the kit's maintainers if it happens again",
        )
    return GradeReport(
        lesson=item.lesson,
        submission=item.display,
        status="error",
        errors=(problem,),
        student=item.student,
    ).to_json()


def batches(items: Batch, size: int = BATCH_SIZE) -> list[Batch]:
    """Batches of submissions that probably share a lesson (one pytest session each).

    The lesson is guessed from the name only to group the work; each submission's
    lesson is still decided when it is read. Submissions are grouped within a
    window of the input at a time, so results come back roughly in input order
    and few wait in memory for their turn to be printed, however large the class.
    """
    window = size * WINDOW_BATCHES
    result = []
    for first in range(0, len(items), window):
        ordered = sorted(items[first : first + window], key=lambda i: likely_lesson(i[1].path))
        result += [ordered[start : start + size] for start in range(0, len(ordered), size)]
    return result


def likely_lesson(path: Path) -> str:
    lesson = lesson_named_in(path.name)
    return lesson.id if lesson else ""


def collect_garbage_per_batch() -> None:
    """In a grading process, the cyclic garbage collector mostly runs between batches.

    A pytest session makes objects by the hundred thousand and most of them
    live until it ends; with the default thresholds the collector would keep
    walking them. What is in memory before grading (the modules) is frozen
    out of its sight, and each batch's leftovers are collected when it ends,
    so memory stays flat however many batches a process grades.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def grade_in_this_process(
    items: Batch, lesson_id: str | None, kit: Kit, limits: Limits
) -> Iterator[Result]:
    session = GradingSession(kit, limits)
    try:
        for batch in batches(items):
            yield from grade_batch_safely(batch, lesson_id, session)
    finally:
        session.close()


def grading_process(
    tasks: Any, results: Any, kit_root: str, limits: Limits, lesson_id: str | None, core: int
) -> None:
    # This process and its workers (forked from a zygote it starts) share one CPU:
    # a call into a worker hands over to it on the same CPU, which is faster.
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[core % len(cores)]})
    collect_garbage_per_batch()
    session = GradingSession(Kit(Path(kit_root)), limits)
    me = multiprocessing.current_process().pid
    try:
        while (task := tasks.get()) is not None:
            number, batch = task
            results.put(("started", number, me))
            results.put(("done", number, grade_batch_safely(batch, lesson_id, session)))
            gc.collect()
    finally:
        session.close()


def start_method() -> str:
    """`fork` is fastest, but only safe while this process runs no other thread."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def grade_in_parallel(
    items: Batch, lesson_id: str | None, kit: Kit, limits: Limits, jobs: int
) -> Iterator[Result]:
    context = multiprocessing.get_context(start_method())
    work = dict(enumerate(batches(items, min(BATCH_SIZE, max(1, len(items) // jobs)))))
    tasks, results = context.Queue(), context.Queue()
    for task in work.items():
        tasks.put(task)

    started = 0

    def start() -> Any:
        nonlocal started
        process = context.Process(
            target=grading_process,
            daemon=True,
            args=(tasks, results, str(kit.root), limits, lesson_id, started),
        )
        started += 1
        process.start()
        tasks.put(None)
        return process

    processes = [start() for _ in range(min(jobs, len(work)))]
    holding: dict[int, int] = {}
    remaining = set(work)
    try:
        while remaining:
            try:
                event, number, payload = results.get(timeout=0.5)
            except queue.Empty:
                for process in list(processes):
                    if process.is_alive():
                        continue
                    processes.remove(process)
                    lost = holding.pop(process.pid, None)
                    if lost is None:
                        continue
                    processes.append(start())
                    remaining.discard(lost)
                    error = RuntimeError("the grading process stopped while grading this batch")
                    yield from ((index, failure_report(item, error)) for index, item in work[lost])
                continue
            if event == "started":
                holding[payload] = number
            else:
                holding = {pid: n for pid, n in holding.items() if n != number}
                remaining.discard(number)
                yield from payload
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()


def grade_many(
    items: Batch, lesson_id: str | None, kit: Kit, limits: Limits, jobs: int
) -> Iterator[Result]:
    """(index, report) for every item, batch by batch, in the order batches finish."""
    if jobs <= 1 or len(items) <= 1:
        return grade_in_this_process(items, lesson_id, kit, limits)
    return grade_in_parallel(items, lesson_id, kit, limits, jobs)
