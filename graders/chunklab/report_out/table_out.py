"""The table a person reads on stderr, as a report sink: one row per report, in input order."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.report_out.table import Outline, outline, results_table


class TableOut:
    """Keeps each report's row (never the report), and prints the table when the run ends.

    `more_rows` gives the rows of what no report stands for: a roster's students
    with no submission.
    """

    def __init__(self, shown: bool, more_rows: Callable[[], Sequence[Outline]] = tuple) -> None:
        self.shown = shown
        self.more_rows = more_rows
        self._rows: dict[int, Outline] = {}

    def add(self, record: ReportRecord) -> ReportRecord:
        self._rows[record.number] = outline(record.report)
        return record

    def rows(self) -> list[Outline]:
        return [self._rows[number] for number in sorted(self._rows)] + list(self.more_rows())

    def finish(self, end: RunEnd) -> None:
        if self.shown:
            sys.stderr.write(results_table(self.rows()))
