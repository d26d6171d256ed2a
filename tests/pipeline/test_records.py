"""Outputs in a row: each record passes through them in order, and so does the run's end."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from chunklab.pipeline.records import ReportRecord, RunEnd, Sinks
from chunklab.reading.read import SubmissionPath
from chunklab.scoring.report import GradeReport, Problem

END = RunEnd(found=2, graded=2, interrupted=False, started=0.0)


def record(number: int) -> ReportRecord:
    name = f"s{number}_char_chunk.py"
    item = SubmissionPath(Path(name), name, f"s{number}")
    return ReportRecord(number, item, GradeReport("char_chunk", item.display, "graded"), True)


class Warns:
    """Adds a warning to each report, as the report files do for one they cannot write."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def add(self, record: ReportRecord) -> ReportRecord:
        self.log.append(f"warns {record.number}")
        report = replace(record.report, warnings=(Problem("not_written", "no room"),))
        return replace(record, report=report)

    def finish(self, end: RunEnd) -> None:
        self.log.append("warns finished")


class Keeps:
    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.seen: list[ReportRecord] = []

    def add(self, record: ReportRecord) -> ReportRecord:
        self.log.append(f"keeps {record.number}")
        self.seen.append(record)
        return record

    def finish(self, end: RunEnd) -> None:
        self.log.append(f"keeps finished, {end.graded} graded")


def test_each_output_sees_the_record_the_one_before_handed_on():
    log: list[str] = []
    keeps = Keeps(log)
    sinks = Sinks([Warns(log), keeps])
    sinks.add(record(1))
    sinks.add(record(0))
    sinks.finish(END)
    assert log == [
        "warns 1", "keeps 1", "warns 0", "keeps 0", "warns finished", "keeps finished, 2 graded"
    ]  # fmt: skip
    assert sinks.count == 2
    assert [r.number for r in keeps.seen] == [1, 0]
    assert [[w.kind for w in r.report.warnings] for r in keeps.seen] == [["not_written"]] * 2
