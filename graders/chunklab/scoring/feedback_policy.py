"""How much of a hidden test a report shows: the instructor's choice, the same in every output.

Hidden inputs are seeded, so the same ones come back at every grading: a
student who sees them in the feedback could collect them over resubmissions
and answer them by heart. Visible tests always keep their full feedback.

- `full`: the rule, the input, what was expected and what the code returned;
- `rule`: the rule only (the default);
- `none`: points only, and not even which rule a hidden test checks.
"""

from __future__ import annotations

from dataclasses import replace

from chunklab.scoring.report import GradeReport, TestOutcome

CHOICES = ("full", "rule", "none")
DEFAULT = "rule"


def hidden_test_shown(test: TestOutcome, number: int, policy: str) -> TestOutcome:
    if test.visibility != "hidden" or policy == "full":
        return test
    if policy == "rule":
        return replace(test, feedback="")
    return replace(
        test,
        name=f"hidden check {number}",
        rule="a hidden check",
        outcome="passed" if test.outcome == "passed" else "failed",
        feedback="",
    )


def with_hidden_feedback(report: GradeReport, policy: str) -> GradeReport:
    """The report with its hidden tests shown as `policy` allows."""
    if policy not in CHOICES:
        raise ValueError(f"hidden feedback must be one of {', '.join(CHOICES)}, not {policy!r}")
    hidden = iter(range(1, len(report.tests) + 1))
    tests = tuple(
        hidden_test_shown(test, next(hidden) if test.visibility == "hidden" else 0, policy)
        for test in report.tests
    )
    return replace(report, tests=tests)
