"""A readable table of results for a person at a terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def results_table(reports: Sequence[dict[str, Any]]) -> str:
    rows = [("submission", "lesson", "score", "status", "note")]
    for report in reports:
        note = ""
        if report["errors"]:
            note = report["errors"][0]["message"]
        else:
            broken = [t["rule"] for t in report["tests"] if t["outcome"] != "passed"]
            if broken:
                note = f"{len(broken)} rule(s) broken, first: {broken[0]}"
        rows.append((
            report["submission"], str(report["lesson"] or "?"),
            f"{report['score']:g}/{report['max_score']:g}", report["status"], shorten(note, 70),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4]
             for row in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
