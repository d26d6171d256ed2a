"""With `--out`: one JSON file per report under `submissions/`, and Gradescope's `results.json`."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.reading.read import SubmissionPath
from chunklab.report_out.files import report_file_name, write_json, write_json_or_say_why
from chunklab.report_out.report_layout import ReportLayout
from chunklab.scoring.report import GradeReport, Problem
from chunklab.text import terminal_safe


def report_path(out_dir: Path, item: SubmissionPath) -> Path:
    return out_dir / "submissions" / report_file_name(item.display, item.resolved)


class ReportFiles:
    """Writes each report as it comes; one file that cannot be written costs only itself."""

    def __init__(self, out_dir: Path, layout: ReportLayout) -> None:
        self.out_dir, self.layout = out_dir, layout
        # The submissions whose report could not be written.
        self.not_written: list[str] = []
        self.written: list[str] = []
        self.last: GradeReport | None = None

    def add(self, record: ReportRecord) -> ReportRecord:
        report, path = record.report, report_path(self.out_dir, record.item)
        # A resumed report whose file is gone is written again: nothing graded is lost.
        if record.fresh or not path.exists():
            failed = write_json_or_say_why(path, self.layout.data(report))
            if failed:
                warning = Problem("not_written", failed)
                report = replace(report, warnings=(*report.warnings, warning))
                self.not_written.append(report.submission)
                sys.stderr.write(terminal_safe(f"chunklab grade: {failed}") + "\n")
                record = replace(record, report=report)
        self.last = report
        return record

    def finish(self, end: RunEnd) -> None:
        """Gradescope's `results.json`, when one submission was graded in its format."""
        if self.layout.output_format == "gradescope" and end.found == 1 and self.last is not None:
            write_json(self.out_dir / "results.json", self.layout.data(self.last))
            self.written.append("results.json")
