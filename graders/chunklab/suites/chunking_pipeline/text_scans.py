"""Where a text's sentence marks and whitespace are, as the cutting rules look for them.

The rules look at one window at a time: its last sentence mark followed by
whitespace, its last whitespace, the run of whitespace around a place.
`WindowScan` looks through the window itself, as the lesson says. A long
document is the same text for every submission: `TextScan` finds every mark
and every run of whitespace once, at C speed, and answers each window by
bisection. The two give the same answers (`str.isspace` and the regular
expressions' `\\s` are the same test).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache

from chunklab.suites.chunking_pipeline.test_visible import SENTENCE_MARKS

MARK_BEFORE_SPACE = re.compile(f"[{re.escape(SENTENCE_MARKS)}](?=\\s)")
WHITESPACE_RUN = re.compile(r"\s+")


class WindowScan:
    """Looks through the window of the text the rules ask about."""

    def __init__(self, text: str) -> None:
        self.text = text

    def last_mark(self, start: int, stop: int) -> int | None:
        """The last sentence mark in [start, stop) followed by whitespace also before stop."""
        text = self.text
        return next(
            (
                i
                for i in range(stop - 2, start - 1, -1)
                if text[i] in SENTENCE_MARKS and text[i + 1].isspace()
            ),
            None,
        )

    def run_end(self, place: int, stop: int) -> int:
        """Where the whitespace from `place` on ends, at `stop` at the latest."""
        while place < stop and self.text[place].isspace():
            place += 1
        return place

    def last_space(self, start: int, stop: int) -> int | None:
        """The last whitespace character in [start, stop)."""
        return next((j for j in range(stop - 1, start - 1, -1) if self.text[j].isspace()), None)

    def run_start(self, place: int, start: int) -> int:
        """Where the whitespace run that holds `place` begins, at `start` at the earliest."""
        while place > start and self.text[place - 1].isspace():
            place -= 1
        return place

    def spaces(self, start: int, stop: int) -> Iterator[int]:
        """Every whitespace character in [start, stop), in order."""
        return (j for j in range(start, stop) if self.text[j].isspace())


class TextScan(WindowScan):
    """The same answers, from every mark and whitespace run of the text found once."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.marks = [found.start() for found in MARK_BEFORE_SPACE.finditer(text)]
        runs = [found.span() for found in WHITESPACE_RUN.finditer(text)]
        self.run_starts = [begin for begin, _ in runs]
        self.run_ends = [end for _, end in runs]

    def last_mark(self, start: int, stop: int) -> int | None:
        k = bisect_right(self.marks, stop - 2) - 1
        return self.marks[k] if k >= 0 and self.marks[k] >= start else None

    def _run_holding(self, place: int) -> int | None:
        k = bisect_right(self.run_starts, place) - 1
        return k if k >= 0 and place < self.run_ends[k] else None

    def run_end(self, place: int, stop: int) -> int:
        k = self._run_holding(place)
        return place if k is None or place >= stop else min(self.run_ends[k], stop)

    def last_space(self, start: int, stop: int) -> int | None:
        k = bisect_right(self.run_starts, stop - 1) - 1
        if k < 0:
            return None
        last = min(self.run_ends[k], stop) - 1
        return last if last >= start else None

    def run_start(self, place: int, start: int) -> int:
        k = self._run_holding(place)
        return place if k is None else max(self.run_starts[k], min(start, place))

    def spaces(self, start: int, stop: int) -> Iterator[int]:
        k = bisect_right(self.run_ends, start)
        while k < len(self.run_starts) and self.run_starts[k] < stop:
            yield from range(max(self.run_starts[k], start), min(self.run_ends[k], stop))
            k += 1


# Texts at least this long are scanned whole, once, and their scans kept for a while.
SCANNED_FROM_LENGTH = 10_000


def scan_of(text: str) -> WindowScan:
    """How the rules look through `text`: a long one is scanned once per grading process."""
    return kept_scan(text) if len(text) >= SCANNED_FROM_LENGTH else WindowScan(text)


@lru_cache(maxsize=4)
def kept_scan(text: str) -> TextScan:
    return TextScan(text)
