"""With `--out`: `gradebook.csv`, `gradebook_wide.csv`, `rules.csv`, the LMS file and
`summary.json`, written once the run is over (a report sink that keeps nothing itself)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from chunklab.class_out.class_options import LmsOptions
from chunklab.class_out.class_roll import ClassRoll, max_scores_of
from chunklab.class_out.csv_file import csv_text
from chunklab.class_out.gradebook import gradebook_csv, gradebook_wide_csv, rules_csv, summary
from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.report_out.files import write_atomic, write_json
from chunklab.report_out.report_files import ReportFiles
from chunklab.report_out.resume import ResumeOut
from chunklab.report_out.table_out import TableOut
from chunklab.text import terminal_safe


def interrupted_row(graded: int, found: int) -> str:
    """The last row of gradebook.csv after Ctrl-C: the file holds part of the class."""
    return csv_text(
        [], [["(run interrupted)", "", "", "", "", "interrupted",
              f"graded {graded} of {found}; rerun with --resume"]]
    )  # fmt: skip


class Gradebooks:
    """The class's gradebooks and summary, from the roll, the table's rows and the run's end."""

    def __init__(
        self,
        out_dir: Path,
        roll: ClassRoll,
        table: TableOut,
        resume: ResumeOut,
        files: ReportFiles,
        lms: str | None = None,
        lms_options: LmsOptions = LmsOptions(),
    ) -> None:
        self.out_dir, self.roll, self.table = out_dir, roll, table
        self.resume, self.files = resume, files
        self.lms, self.lms_options = lms, lms_options
        self.written: list[str] = []

    def add(self, record: ReportRecord) -> ReportRecord:
        return record

    def finish(self, end: RunEnd) -> None:
        entries = self.roll.entries
        partial = interrupted_row(end.graded, end.found) if end.interrupted else ""
        files = {
            "gradebook.csv": gradebook_csv(entries) + partial,
            "gradebook_wide.csv": gradebook_wide_csv(entries),
            "rules.csv": rules_csv(entries),
        }
        if self.lms:
            from chunklab.class_out.lms import lms_csv, lms_file_name

            lesson_id = self.roll.lesson_id
            max_scores = max_scores_of(entries, [lesson_id] if lesson_id else [])
            files[lms_file_name(self.lms)], notes = lms_csv(
                self.lms, entries, self.roll.roster, max_scores, self.lms_options
            )
            for note in notes:
                print(terminal_safe(f"chunklab grade: {note}"), file=sys.stderr)
        for name, text in files.items():
            write_atomic(self.out_dir / name, text)
        totals = summary(self.table.rows(), time.monotonic() - end.started)
        totals["not_in_roster"] = sorted({e.student for e in self.roll.not_in_roster()})
        totals["vanished"] = [v.submission for v in self.resume.vanished]
        totals["reports_not_written"] = self.files.not_written
        if self.roll.figures is not None:
            totals["roster"] = self.roll.figures.to_json()
        totals["interrupted"] = end.interrupted
        totals["graded"] = end.graded
        totals["found"] = end.found
        write_json(self.out_dir / "summary.json", totals)
        self.written = [*files, "summary.json"]
