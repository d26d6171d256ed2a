"""What runs on a Dask worker: one group of submissions, graded by one grading session.

The task gets its submissions already read (see `parcel`) and grades them
with the worker thread's grading session (its zygote, its sandboxed
workers): run twice, on the same worker or another, it gives the same
reports, which is what lets Dask run it again when a worker dies.
The reports go back as the records they are (Dask pickles them): the worker
runs the same checkout as the machine that sent the task (`kit_stamp`).
"""

from __future__ import annotations

import gc
import hashlib
import importlib.metadata
import threading
import weakref

from chunklab.cluster.cpu_claim import claim_a_cpu
from chunklab.cluster.parcel import Parcel
from chunklab.errors import ChunklabError, KitLayoutError
from chunklab.kit import PACKAGE_DIR, Kit, find_kit
from chunklab.pipeline.parallel import Result, failure_report
from chunklab.pipeline.session import GradingSession, grade_read, refused_report
from chunklab.reading.source import SubmissionSource
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport
from chunklab.suites.digest import this_kit

# pytest keeps its state in the process: two grading sessions must never run at once in
# one worker process, whatever number of threads it was started with.
ONE_SESSION_AT_A_TIME = threading.Lock()
# While a task grades, the cyclic garbage collector runs rarely: a pytest session makes
# objects by the hundred thousand that live until it ends (as in a local grading process).
TASK_GC_THRESHOLDS = (20_000, 50, 100)


class ThreadSession(threading.local):
    """The grading session of one thread of a Dask worker, kept from task to task.

    Starting a session (its zygote, the references, pytest's first collection)
    costs about a third of a task of twenty; a session holds nothing of the
    submissions it graded, so reusing it changes no report. It is the thread's
    own because its zygote is tied to the thread that started it.
    """

    def __init__(self) -> None:
        self.session: GradingSession | None = None
        self.cpu: int | None = None  # the claim's lock, held while the thread lives

    def get(self, kit: Kit, limits: Limits) -> GradingSession:
        if self.session is not None and (self.session.kit, self.session.limits) != (kit, limits):
            self.session.close()
            self.session = None
        if self.session is None:
            if self.cpu is None:
                self.cpu = claim_a_cpu()  # before the zygote starts: it inherits the CPU
            self.session = GradingSession(kit, limits)
            weakref.finalize(self, self.session.close)
        return self.session


SESSIONS = ThreadSession()


class VersionMismatchError(ChunklabError):
    """A worker has another chunklab installed than the machine that sent the task."""

    kind = "version_mismatch"


def kit_stamp(kit: Kit) -> str:
    """The installed version and digests of what decides a grade: code, suites, references.

    Two checkouts of the same version that differ in a grader test, a hidden input
    or a reference solution would grade differently; the digests tell them apart.
    The suites digest is the one every report names (`this_kit`).
    """
    try:
        version = importlib.metadata.version("chunklab")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed"
    digest = hashlib.sha256()
    code = [p for p in PACKAGE_DIR.rglob("*") if p.suffix in (".py", ".json", ".ini")]
    named = [(p.relative_to(PACKAGE_DIR).as_posix(), p) for p in code]
    named += [(f"solutions/{p.name}", p) for p in kit.solutions.glob("*.py")]
    for name, path in sorted(named):
        if "__pycache__" not in name:
            digest.update(f"{name}\0{path.stat().st_size}\0".encode())
            digest.update(path.read_bytes())
    return f"{version} (suites {this_kit().suites}, kit {digest.hexdigest()[:12]})"


def refuse_other_version(sent_from: str, here: str, where: str) -> None:
    if sent_from != here:
        raise VersionMismatchError(
            f"the Dask worker {where} has chunklab {here} but this machine has "
            f"chunklab {sent_from}; install the same checkout on every worker "
            "(pip install -e . in it) and grade again"
        )


def worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "(not in a Dask worker)"


def grade_parcels(
    parcels: list[Parcel], lesson_id: str | None, limits: Limits, stamp: str
) -> list[Result]:
    """(index, report) for every parcel: the task a Dask worker runs."""
    try:
        kit = find_kit()
    except KitLayoutError as error:
        raise KitLayoutError(f"on the Dask worker {worker_address()}: {error}") from None
    refuse_other_version(stamp, kit_stamp(kit), worker_address())
    with ONE_SESSION_AT_A_TIME:
        thresholds = gc.get_threshold()
        gc.set_threshold(*TASK_GC_THRESHOLDS)
        try:
            return grade_safely(parcels, lesson_id, SESSIONS.get(kit, limits))
        finally:
            gc.set_threshold(*thresholds)
            gc.collect()


def grade_safely(
    parcels: list[Parcel], lesson_id: str | None, session: GradingSession
) -> list[Result]:
    """(index, report) for every parcel; a defect that stops the group is retried one at a time."""
    reads: list[SubmissionSource | GradeReport] = [
        parcel.read
        if isinstance(parcel.read, SubmissionSource)
        else refused_report(parcel.item, lesson_id, parcel.read, session)
        for parcel in parcels
    ]
    try:
        reports = grade_read(reads, session)
    except Exception as error:
        if len(parcels) > 1:
            return [pair for one in parcels for pair in grade_safely([one], lesson_id, session)]
        return [(parcels[0].index, failure_report(parcels[0].item, error))]
    return [(parcel.index, report) for parcel, report in zip(parcels, reports, strict=True)]

