"""`gradebook.csv` and `summary.json`: the whole class at a glance."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Sequence
from typing import Any

GRADEBOOK_COLUMNS = ("submission", "lesson", "score", "max_score", "status")


def gradebook_csv(reports: Sequence[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_COLUMNS)
    for report in reports:
        writer.writerow([report.get(column, "") for column in GRADEBOOK_COLUMNS])
    return buffer.getvalue()


def summary(reports: Sequence[dict[str, Any]], duration_s: float) -> dict[str, Any]:
    lessons: dict[str, dict[str, Any]] = {}
    for report in reports:
        entry = lessons.setdefault(
            str(report["lesson"]), {"submissions": 0, "full_marks": 0, "scores": []}
        )
        entry["submissions"] += 1
        entry["scores"].append(report["score"])
        if report["status"] == "graded" and report["score"] == report["max_score"]:
            entry["full_marks"] += 1
    for entry in lessons.values():
        scores = entry.pop("scores")
        entry["mean_score"] = round(sum(scores) / len(scores), 3)
    return {
        "submissions": len(reports),
        "statuses": dict(Counter(str(r["status"]) for r in reports)),
        "lessons": lessons,
        "duration_s": round(duration_s, 3),
    }
