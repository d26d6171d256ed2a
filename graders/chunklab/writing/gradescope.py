"""Gradescope's `results.json` shape, from a chunklab report."""

from __future__ import annotations

from typing import Any

# Gradescope shows "visible" tests at once and keeps "after_published" ones until
# the instructor publishes grades: the nearest match to chunklab's hidden tests.
VISIBILITY = {"visible": "visible", "hidden": "after_published"}


def gradescope_results(report: dict[str, Any]) -> dict[str, Any]:
    tests = [
        {
            "name": test["name"],
            "name_format": "text",
            "score": test["score"],
            "max_score": test["max_score"],
            "status": "passed" if test["outcome"] == "passed" else "failed",
            "output": "\n".join(part for part in (test["rule"], test["feedback"]) if part),
            "output_format": "text",
            "visibility": VISIBILITY.get(test["visibility"], "after_published"),
        }
        for test in report["tests"]
    ]
    messages = [f"{p['kind']}: {p['message']}" for p in report["errors"] + report["warnings"]]
    return {
        "score": report["score"],
        "execution_time": report["duration_s"],
        "output": "\n".join(messages),
        "output_format": "text",
        "visibility": "visible",
        "tests": tests,
    }
