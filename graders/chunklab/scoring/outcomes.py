"""Turns what the grading plugin noted of each grader test into its outcome."""

from __future__ import annotations

from typing import Any

from chunklab.scoring.report import OUTCOMES, Outcome, TestOutcome, Visibility


def outcome_of(nodeid: str, notes: dict[str, Any], passed: bool) -> TestOutcome:
    """A test's outcome from its notes (markers, the kind and feedback of a failure).

    `passed` is whether every stage of the test (setup, call, teardown) passed.
    """
    kind = notes.get("kind", "error")
    failed: Outcome = kind if kind in OUTCOMES and kind != "passed" else "error"
    # Only a test marked visible is a public check, as when the self-check picks its tests.
    visibility: Visibility = "visible" if notes.get("visibility") == "visible" else "hidden"
    return TestOutcome(
        name=test_name(nodeid),
        rule=str(notes.get("rule", "")),
        max_score=float(notes.get("points", 0.0)),
        outcome="passed" if passed else failed,
        visibility=visibility,
        feedback="" if passed else str(notes.get("feedback", "")),
    )


def test_name(nodeid: str) -> str:
    """`test_visible.py::test_empty_text`: without the folder and the submission's key."""
    name = nodeid.rsplit("/", 1)[-1]
    return name.split("[", 1)[0]


def visible_first(outcomes: list[TestOutcome]) -> list[TestOutcome]:
    """A submission's outcomes, visible tests first, each part in the suite's order."""
    return sorted(outcomes, key=lambda outcome: outcome.visibility != "visible")
