"""What a grading run hands its outputs: one record per submission, then how the run ended.

Every output of `chunklab grade` (JSON Lines, report files, the resume index,
the class's files and pages, the progress bar, the table) is a `ReportSink`:
it takes each record as it comes (`add`), then writes what it keeps once
the run is over (`finish`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from chunklab.reading.read import SubmissionPath
from chunklab.scoring.report import GradeReport


@dataclass(frozen=True)
class ReportRecord:
    """One submission's report, with its place among the submissions found."""

    number: int  # the submission's place in input order, from 0
    item: SubmissionPath
    report: GradeReport
    # Graded by this run; False for a report reused by --resume or a file left untouched.
    fresh: bool


@dataclass(frozen=True)
class NotGraded:
    """A submission found but not graded (the run was interrupted first): whose, in what."""

    student: str
    lesson: str  # "" when the lesson was to be worked out from the submission
    lms_id: str = ""


@dataclass(frozen=True)
class RunEnd:
    """How a grading run ended, as every output's last words say it."""

    found: int  # submissions found
    graded: int  # records handed out, fresh or not
    interrupted: bool  # Ctrl-C: the outputs hold part of the class
    started: float  # time.monotonic() when the command started
    # Once interrupted: the submissions found that no record was handed out for.
    not_graded: tuple[NotGraded, ...] = ()


class ReportSink(Protocol):
    def add(self, record: ReportRecord) -> ReportRecord:
        """Take one record; return it as the outputs after this one see it.

        Only the report files change it: a report that could not be written
        carries a warning saying so in every later output.
        """
        ...

    def finish(self, end: RunEnd) -> None: ...


class Sinks:
    """Outputs in a row: each record goes through them in order, and so does the end."""

    def __init__(self, sinks: list[ReportSink]) -> None:
        self.sinks = sinks
        self.count = 0
        self.numbers: set[int] = set()  # the submissions a record was handed out for

    def add(self, record: ReportRecord) -> ReportRecord:
        self.count += 1
        self.numbers.add(record.number)
        for sink in self.sinks:
            record = sink.add(record)
        return record

    def finish(self, end: RunEnd) -> None:
        for sink in self.sinks:
            sink.finish(end)
