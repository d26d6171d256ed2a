"""`similarity.csv`: every flagged pair of similar submissions, one row each."""

from __future__ import annotations

from collections.abc import Sequence

from chunklab.class_out.csv_file import csv_text
from chunklab.class_out.similarity import SimilarPair, line_spans

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


def lines(source: str, regions: Sequence[tuple[int, int]]) -> str:
    spans = line_spans(source, regions)
    return " ".join(f"L{a}-L{b}" if a != b else f"L{a}" for a, b in spans)


def similarity_csv(pairs: Sequence[SimilarPair]) -> str:
    return csv_text(
        SIMILARITY_COLUMNS,
        (
            (
                pair.lesson,
                f"{pair.score:.4f}",
                pair.first.student,
                pair.first.submission,
                f"{pair.first_share:.4f}",
                lines(pair.first.source, pair.first_regions),
                pair.second.student,
                pair.second.submission,
                f"{pair.second_share:.4f}",
                lines(pair.second.source, pair.second_regions),
            )
            for pair in pairs
        ),
    )
