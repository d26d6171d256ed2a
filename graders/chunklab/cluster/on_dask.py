"""Sends the grading to a Dask scheduler and streams the reports back as tasks finish.

Tasks are sent a few at a time (about two per worker thread) and read
from the input as they are sent, so the client's memory stays flat
however large the class. Each task is a group of submissions that share a
lesson as far as their names tell, from one stretch of the input, so the
reports waiting for their turn in input order stay few.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError
from typing import Any

from chunklab.cluster.parcel import pack
from chunklab.cluster.task import VersionMismatchError, grade_parcels, kit_stamp
from chunklab.errors import ChunklabError, GradingBrokeOffError, UsageError
from chunklab.kit import Kit
from chunklab.pipeline.parallel import Result, failure_report
from chunklab.reading.lesson_of import likely_lesson
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits

Group = list[tuple[int, SubmissionPath]]
# Large enough to spread a grading session's start over many submissions, small enough
# that every worker gets work in a small class.
GROUP_SIZE = 20
# Groups are formed from this many groups' worth of input at a time.
STRETCH_GROUPS = 8
# A task whose worker raised is tried again this often (a worker that dies is handled
# by the scheduler: its tasks go to other workers).
RETRIES = 2
CONNECT_SECONDS = 30
# How often the number of worker threads is asked again (a cluster may grow).
RESIZE_SECONDS = 5.0


class SchedulerUnreachableError(ChunklabError):
    """No Dask scheduler answers at the address given: nothing was graded."""

    kind = "scheduler_unreachable"


class SchedulerLostError(GradingBrokeOffError):
    """The Dask scheduler cannot be reached, or stopped answering during the run."""

    kind = "scheduler_lost"


def task_groups(items: Group, size: int) -> Iterator[Group]:
    """Groups of at most `size` items, each from one stretch of the input, by likely lesson.

    The name only guesses the lesson, to put one lesson's submissions in one pytest
    session; each submission's lesson is still decided when it is read.
    """
    stretch = size * STRETCH_GROUPS
    for first in range(0, len(items), stretch):
        by_lesson: dict[str, Group] = {}
        for index, item in items[first : first + stretch]:
            lesson = likely_lesson(item.path)
            by_lesson.setdefault(lesson.id if lesson else "", []).append((index, item))
        ordered = [pair for key in sorted(by_lesson) for pair in by_lesson[key]]
        yield from (ordered[start : start + size] for start in range(0, len(ordered), size))


def connect(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "grading on Dask needs the distributed package: pip install 'chunklab[dask]'"
        ) from None
    try:
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise SchedulerUnreachableError(
            f"cannot reach the Dask scheduler at {address} ({error}); "
            "check the address and that the scheduler is running"
        ) from None


def grade_on_dask(
    address: str,
    items: Group,
    lesson_id: str | None,
    kit: Kit,
    limits: Limits,
    jobs: int,
    *,
    group_size: int = GROUP_SIZE,
) -> Iterator[Result]:
    """(index, report) for every item, graded on the cluster, in the order tasks finish.

    `jobs` is not used: the cluster's workers decide how much runs at once.
    """
    del jobs
    if not items:
        return  # all resumed: no need for a cluster
    client = connect(address)
    try:
        yield from stream(client, items, lesson_id, kit, limits, group_size)
    except (OSError, CancelledError):  # the connection closed while sending or asking
        raise lost(address) from None
    finally:
        close_quietly(client)


def close_quietly(client: Any) -> None:
    """Close the client; a scheduler already lost is reported once, by our own error."""
    logger = logging.getLogger("distributed.client")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        client.close()
    finally:
        logger.setLevel(level)


def stream(
    client: Any,
    items: Group,
    lesson_id: str | None,
    kit: Kit,
    limits: Limits,
    group_size: int,
) -> Iterator[Result]:
    from distributed import as_completed

    stamp = kit_stamp(kit)
    threads = max(1, sum(client.nthreads().values()))
    size = min(group_size, max(1, len(items) // threads))
    groups = task_groups(items, size)
    held: dict[Any, Group] = {}
    finished = as_completed(loop=client.loop)
    resized = time.monotonic()

    def send_more() -> None:
        nonlocal threads, resized
        if time.monotonic() - resized > RESIZE_SECONDS:
            threads, resized = max(1, sum(client.nthreads().values())), time.monotonic()
        while len(held) < 2 * threads and (group := next(groups, None)) is not None:
            # Read here, as a local run reads them: only what was read travels.
            limit = limits.max_submission_kb * 1024
            parcels = [pack(index, item, lesson_id, limit) for index, item in group]
            future = client.submit(
                grade_parcels, parcels, lesson_id, limits, stamp, retries=RETRIES, pure=False
            )
            held[future] = group
            finished.add(future)

    send_more()
    for future in finished:
        group = held.pop(future)
        yield from outcome(future, group)
        future.release()
        send_more()


def lost(address: str) -> SchedulerLostError:
    return SchedulerLostError(
        f"lost the Dask scheduler at {address}; the reports printed so far are written: "
        "run the same command with --resume to grade the rest"
    )


def outcome(future: Any, group: Group) -> list[Result]:
    """The group's reports; a task that kept failing is reported, never dropped."""
    if future.status == "finished":
        return future.result()
    if future.status == "cancelled":
        raise CancelledError  # the scheduler forgot it: it went away
    error = future.exception()
    if isinstance(error, ChunklabError):
        raise error  # a misconfigured worker (another version, no kit): nothing it grades counts
    if isinstance(error, ImportError):
        raise VersionMismatchError(
            f"a Dask worker cannot run chunklab ({error}); install the same checkout "
            "of the kit on every worker (pip install -e . in it) and grade again"
        )
    return [(index, failure_report(item, error)) for index, item in group]
