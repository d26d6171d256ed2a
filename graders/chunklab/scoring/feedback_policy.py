"""How much of a hidden test a report shows: the instructor's choice, the same in every output.

Hidden inputs are seeded, so the same ones come back at every grading: a
student who sees them in the feedback could collect them over resubmissions
and answer them by heart. Visible tests always keep their full feedback.

- `full`: the rule, the input, what was expected and what the code returned;
- `rule`: the rule (the default), and an input to try when the check found one:
  a public or made-up input, never a hidden one, that breaks the same rule for
  this submission (the feedback's line starting "Try: ", the input alone), or a
  verdict that names no input (its line starting "Verdict: ": the long
  document's wrong answer, or its growth);
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
        return replace(test, feedback=kept_under_rule(test.feedback))
    return replace(
        test,
        name=f"hidden check {number}",
        rule="a hidden check",
        outcome="passed" if test.outcome == "passed" else "failed",
        feedback="",
    )


def kept_under_rule(feedback: str) -> str:
    """The line of a hidden check's feedback that offers an input to try, or gives a verdict
    that names no input; "" when there is none.

    Either is always the feedback's last part, after what the hidden input showed;
    the values shown there are quoted, so no line of theirs starts with a prefix. Only
    that line is kept, all of it the kit's own text: what the submission answered
    (a message, a value, even how fast) is its own choice, and could carry the
    hidden inputs it was given. The student runs the input to see the answer.
    """
    # The suites' vocabulary imports pytest: the command line starts without it, and a
    # report is shown once the grading (which imports it anyway) has made it.
    from chunklab.suites.checks import TRY_PREFIX, VERDICT_PREFIX

    for prefix in (TRY_PREFIX, VERDICT_PREFIX):
        _, found, kept = f"\n{feedback}".rpartition(f"\n{prefix}")
        if found:
            return f"{prefix}{kept}".split("\n", 1)[0]
    return ""


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
