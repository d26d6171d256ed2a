"""`similarity.csv`: every flagged pair of similar submissions, one row each."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from chunklab.similarity import SimilarPair, line_spans
from chunklab.writing.html_page import inert

SIMILARITY_COLUMNS = (
    "lesson",
    "score",
    "student_a",
    "submission_a",
    "share_a",
    "lines_a",
    "student_b",
    "submission_b",
    "share_b",
    "lines_b",
)
# A cell starting with one of these is a formula to a spreadsheet.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(text: str) -> str:
    """Inert text a spreadsheet shows as it is: a leading quote stops a formula."""
    value = inert(text)
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def lines(source: str, regions: Sequence[tuple[int, int]]) -> str:
    spans = line_spans(source, regions)
    return " ".join(f"L{a}-L{b}" if a != b else f"L{a}" for a, b in spans)


def similarity_csv(pairs: Sequence[SimilarPair]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SIMILARITY_COLUMNS)
    for pair in pairs:
        writer.writerow(
            [
                cell(pair.lesson),
                f"{pair.score:.4f}",
                cell(pair.first.student),
                cell(pair.first.submission),
                f"{pair.first_share:.4f}",
                lines(pair.first.source, pair.first_regions),
                cell(pair.second.student),
                cell(pair.second.submission),
                f"{pair.second_share:.4f}",
                lines(pair.second.source, pair.second_regions),
            ]
        )
    return buffer.getvalue()
