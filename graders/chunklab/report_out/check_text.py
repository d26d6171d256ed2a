"""A self-check result as text a student reads: points, then each broken rule with its input.

Plain ASCII, so it prints the same in a notebook, a terminal or a log.
"""

from __future__ import annotations

from chunklab.scoring.report import GradeReport, TestOutcome

NOT_WRITTEN = "NotImplementedError"
HIDDEN_NOTE = (
    "Grading also runs checks on inputs the self-check does not show you, and checks the "
    "rules it does not cover; passing here is a good sign, not a promise."
)


def points(value: float) -> str:
    return f"{value:g}"


def headline(report: GradeReport) -> str:
    return (
        f"{report.lesson} self-check: {points(report.score)} of "
        f"{points(report.max_score)} points (public checks only)"
    )


def failed_by_rule(tests: tuple[TestOutcome, ...]) -> dict[str, list[TestOutcome]]:
    """The failed tests under each rule, rules in the order the suite runs them."""
    grouped: dict[str, list[TestOutcome]] = {}
    for test in tests:
        if test.outcome != "passed":
            grouped.setdefault(test.rule or test.name, []).append(test)
    return grouped


def indented(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def broken_rule_text(rule: str, failures: list[TestOutcome]) -> str:
    first = failures[0]
    lines = [f"Broken rule: {rule}"]
    lines.append(indented(first.feedback or f"{first.name} did not pass."))
    if len(failures) > 1:
        lines.append(f"  ({len(failures) - 1} more failing check(s) for this rule)")
    return "\n".join(lines)


def not_written(failures: list[TestOutcome], report: GradeReport) -> bool:
    """Every check failed only because the function still raises NotImplementedError."""
    return len(failures) == len(report.tests) and all(NOT_WRITTEN in t.feedback for t in failures)


def check_text(report: GradeReport) -> str:
    """The self-check result: headline, broken rules with input/expected/got, a closing note."""
    lines = [headline(report), ""]
    if report.status != "graded":
        lines.append("Nothing could be checked:")
        lines += [indented(problem.message) for problem in report.errors]
        return "\n".join(lines)
    for warning in report.warnings:
        lines += [
            "Note: part of your code failed to run (the checks ran anyway):",
            indented(warning.message.strip()),
            "",
        ]
    failures = [t for t in report.tests if t.outcome != "passed"]
    if failures and not_written(failures, report):
        lines += [
            "Your code still raises NotImplementedError: write it where the stub is, run it, "
            "and check again.",
        ]
        return "\n".join(lines)
    for rule, tests in failed_by_rule(report.tests).items():
        lines += [broken_rule_text(rule, tests), ""]
    passed = len(report.tests) - len(failures)
    if failures:
        lines.append(f"{passed} of {len(report.tests)} public checks pass.")
    else:
        lines.append(f"All {len(report.tests)} public checks pass.")
    lines.append(HIDDEN_NOTE)
    return "\n".join(lines)


def all_passed(report: GradeReport) -> bool:
    return (
        report.status == "graded"
        and bool(report.tests)
        and all(test.outcome == "passed" for test in report.tests)
    )
