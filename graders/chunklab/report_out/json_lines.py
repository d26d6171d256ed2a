"""Standard output: one JSON object per report, one per line, in input order."""

from __future__ import annotations

from typing import TextIO

from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.report_out.inert import json_line
from chunklab.report_out.report_layout import ReportLayout
from chunklab.report_out.streams import silence


class JsonLinesOut:
    """Prints reports as JSON Lines in input order; a reader that goes away ends it quietly.

    A report that comes before the ones ahead of it waits for them.
    """

    def __init__(self, stream: TextIO, layout: ReportLayout) -> None:
        self.stream, self.layout = stream, layout
        self.enabled = True
        self.waiting: dict[int, str] = {}
        self.next_index = 0

    def add(self, record: ReportRecord) -> ReportRecord:
        if self.enabled:
            self.waiting[record.number] = json_line(self.layout.data(record.report))
            self.print_ready()
        return record

    def finish(self, end: RunEnd) -> None:
        if end.interrupted:
            self.print_rest()

    def print_ready(self) -> None:
        if not self.enabled:
            return
        try:
            while self.next_index in self.waiting:
                self.stream.write(self.waiting.pop(self.next_index) + "\n")
                self.next_index += 1
            self.stream.flush()
        except BrokenPipeError:
            # `chunklab grade ... | head`: stop printing, keep grading and writing files.
            self.enabled = False
            self.waiting.clear()
            silence(self.stream)

    def print_rest(self) -> None:
        """After an interruption: what was graded, in input order, past the gaps."""
        for index in sorted(self.waiting):
            self.next_index = index
            self.print_ready()
