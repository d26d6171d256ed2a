"""`--resume`: reuse a report only for exactly what was graded.

A report is keyed on the submission's resolved path, the lesson it was asked
to be graded as, and a hash of its content (every regular file of a student
folder), so a changed file is graded again and a grade is never reused for
another lesson; a report made by other suites or hidden inputs (another kit
digest) is graded again too. The index is a JSON Lines file in the output folder, one line
appended per graded submission: an interrupted run keeps what it finished.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from chunklab.errors import SubmissionError
from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.reading.folder import OpenFolder
from chunklab.reading.read import SubmissionPath
from chunklab.reading.safe_file import read_regular_file
from chunklab.reading.student import regular_files
from chunklab.report_out.inert import json_line
from chunklab.scoring.report import GradeReport
from chunklab.suites.digest import this_kit

INDEX_NAME = ".chunklab-resume.jsonl"
# Larger than any file the reader accepts: a file this large is refused when graded anyway.
MOST_HASHED_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ResumeKey:
    path: str
    lesson: str
    digest: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "lesson": self.lesson, "digest": self.digest}


def content_digest(path: Path) -> str:
    """A hash of a file, or of a folder's regular files (names and bytes); nothing followed.

    A link, a FIFO or a special file is hashed by what it is, never opened: its
    report (an unsafe path) is reused only while it stays what it was.
    """
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            with OpenFolder(path) as folder:  # every file read through the folder's handle
                return files_digest(path, regular_files(folder), folder.read)
        return files_digest(path, [path], read_regular_file)
    except (OSError, SubmissionError):
        return hashlib.sha256(b"unlistable").hexdigest()


def files_digest(path: Path, files: list[Path], read: Callable[[Path, int], bytes]) -> str:
    digest = hashlib.sha256()
    for file in files:
        name = file.name if file == path else str(file.relative_to(path))
        digest.update(name.encode(errors="surrogateescape"))
        digest.update(b"\0")
        try:
            digest.update(read(file, MOST_HASHED_BYTES))
        except SubmissionError as error:
            digest.update(f"{error.kind}".encode())
        digest.update(b"\0")
    return digest.hexdigest()


def resume_key(item: SubmissionPath, lesson_id: str | None) -> ResumeKey:
    return ResumeKey(
        path=item.resolved,
        lesson=item.lesson or lesson_id or "",
        digest=content_digest(item.path),
    )


@dataclass(frozen=True)
class Vanished:
    """A report of an earlier run whose submission is no longer among the paths graded."""

    submission: str
    path: str


class ResumeIndex:
    """The reports earlier runs graded, by key; new reports are appended as they come."""

    def __init__(self, out_dir: Path, keep: bool) -> None:
        """`keep`: reuse what earlier runs noted (--resume); else start the index afresh."""
        self.path = out_dir / INDEX_NAME
        self.reports: dict[ResumeKey, GradeReport] = {}
        self.stream: TextIO | None = None
        if not keep:
            self.path.unlink(missing_ok=True)
        for line in self._lines():
            try:
                record = json.loads(line)
                key = ResumeKey(**record["key"])
                # What an earlier version wrote, or a damaged line, is graded again.
                report = GradeReport.from_json(record["report"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by an interrupted run
            self.reports[key] = report

    def _lines(self) -> list[str]:
        try:
            return self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return []

    def previous(self, key: ResumeKey) -> GradeReport | None:
        report = self.reports.get(key)
        if report is None or (key.lesson and report.lesson not in (key.lesson, None)):
            return None
        if report.kit != this_kit():
            return None  # graded by other suites or inputs: it may not be the grade now
        return report

    def record(self, key: ResumeKey, report: GradeReport) -> None:
        if self.stream is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Grades: readable by the grading user alone, as every output file.
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self.stream = os.fdopen(handle, "a", encoding="utf-8")
        line = json_line({"key": key.to_json(), "report": report.to_json()})
        self.stream.write(line + "\n")
        self.stream.flush()
        self.reports[key] = report

    def vanished(self, present: set[str]) -> list[Vanished]:
        """Reports of earlier runs whose resolved path is not among `present`."""
        gone: dict[str, Vanished] = {}
        for key, report in self.reports.items():
            if key.path not in present:
                gone[report.submission] = Vanished(report.submission, key.path)
        return sorted(gone.values(), key=lambda v: v.submission)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


class ResumeOut:
    """The index as a report sink: what an earlier run graded, and this run's fresh reports.

    With `keep` (--resume), `previous` gives a submission's earlier report when it
    is unchanged; the index is started afresh otherwise.
    """

    def __init__(
        self, out_dir: Path, items: Sequence[SubmissionPath], lesson_id: str | None, keep: bool
    ) -> None:
        self.index = ResumeIndex(out_dir, keep=keep)
        self.keep = keep
        self.keys = [resume_key(item, lesson_id) for item in items]
        # Known once the run is over: earlier reports of submissions no longer given.
        self.vanished: list[Vanished] = []

    def previous(self, number: int) -> GradeReport | None:
        return self.index.previous(self.keys[number]) if self.keep else None

    def add(self, record: ReportRecord) -> ReportRecord:
        if record.fresh:
            self.index.record(self.keys[record.number], record.report)
        return record

    def finish(self, end: RunEnd) -> None:
        self.index.close()
        if self.keep:
            self.vanished = self.index.vanished({key.path for key in self.keys})
