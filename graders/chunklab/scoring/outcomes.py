"""Turns what the grading plugin noted of each grader test into its outcome."""

from __future__ import annotations

from dataclasses import dataclass, replace
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


@dataclass(frozen=True)
class BuildsOn:
    """A failed test that said "not checked: fix `rule` first" (the outcome at `index`).

    `alone` is the message of the basic check it ran on its input: what the test
    shows when no test of `rule` itself failed in the run.
    """

    index: int
    rule: str
    alone: str


def settled(outcomes: list[TestOutcome], waiting: list[BuildsOn]) -> list[TestOutcome]:
    """The outcomes, each "fix that rule first" kept only where a test of that rule failed.

    A test of the basic rule that passed says the rule holds; pointing there would
    send the student to a check that is green. The test then shows what broke on
    its input, and names the basic rule it broke.
    """
    if not waiting:
        return outcomes
    settled_ones = list(outcomes)
    failed = {other.rule for other in outcomes if other.outcome != "passed"}
    for wait in waiting:
        own = outcomes[wait.index]
        if own.rule == wait.rule:
            # A check of the basic rule itself: its own failure, as it is.
            settled_ones[wait.index] = replace(own, feedback=wait.alone)
        elif wait.rule not in failed:
            settled_ones[wait.index] = replace(
                own, feedback=f"{wait.alone}\nThis breaks the rule '{wait.rule}'."
            )
    return settled_ones
