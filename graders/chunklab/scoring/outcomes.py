"""Reads test outcomes out of a pytest-json-report report."""

from __future__ import annotations

from typing import Any

from chunklab.scoring.report import OUTCOMES, Outcome, TestOutcome, Visibility


def outcome_of(test: dict[str, Any]) -> TestOutcome:
    metadata = test.get("metadata", {})
    passed = test.get("outcome") == "passed"
    kind = metadata.get("kind", "error")
    failed: Outcome = kind if kind in OUTCOMES and kind != "passed" else "error"
    # Only a test marked visible is a public check, as when the self-check picks its tests.
    visibility: Visibility = "visible" if metadata.get("visibility") == "visible" else "hidden"
    return TestOutcome(
        name=test_name(test["nodeid"]),
        rule=str(metadata.get("rule", "")),
        max_score=float(metadata.get("points", 0.0)),
        outcome="passed" if passed else failed,
        visibility=visibility,
        feedback="" if passed else str(metadata.get("feedback", "")),
    )


def test_name(nodeid: str) -> str:
    """`test_visible.py::test_empty_text`: without the folder and the submission's key."""
    name = nodeid.rsplit("/", 1)[-1]
    return name.split("[", 1)[0]


def outcomes_by_submission(report: dict[str, Any]) -> dict[str, list[TestOutcome]]:
    """Each submission's outcomes, visible tests first, in the suite's order."""
    grouped: dict[str, list[TestOutcome]] = {}
    for test in report.get("tests", []):
        key = str(test.get("metadata", {}).get("submission"))
        grouped.setdefault(key, []).append(outcome_of(test))
    for outcomes in grouped.values():
        outcomes.sort(key=lambda outcome: outcome.visibility != "visible")
    return grouped
