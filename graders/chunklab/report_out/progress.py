"""A one-line progress bar on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

from typing import TextIO

from chunklab.pipeline.records import ReportRecord, RunEnd


class ProgressBar:
    """Counts the submissions graded by this run (a report sink)."""

    def __init__(self, total: int, stream: TextIO, width: int = 30) -> None:
        self.total, self.stream, self.width = total, stream, width
        self.enabled = stream.isatty() and total > 1
        self.done = 0

    def add(self, record: ReportRecord) -> ReportRecord:
        if record.fresh:  # a reused report was not graded now
            self.advance()
        return record

    def advance(self) -> None:
        self.done += 1
        if self.enabled:
            filled = self.width * self.done // self.total
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total}")
            self.stream.flush()

    def finish(self, end: RunEnd | None = None) -> None:
        """Clears the bar, so what is said next starts its own line."""
        if self.enabled:
            self.stream.write("\r" + " " * (self.width + 24) + "\r")
            self.stream.flush()
