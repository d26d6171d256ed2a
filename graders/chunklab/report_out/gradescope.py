"""Gradescope's `results.json` shape, from a chunklab report.

Each test is named by the rule it checks, numbered `group.test` and tagged
with the lesson's rule group (the groups the lesson text lists its rules
in). Hidden tests get the visibility the instructor chose; the submission's
own problems (it could not be read, it defines nothing) go to the top-level
`output`, which the student sees. What the sandbox could not keep apart
where the autograder ran is one more test, of no points, that only
instructors see.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from chunklab.errors import ChunklabError
from chunklab.sandbox.zygote import GAPS
from chunklab.scoring.report import DURATION_DIGITS, GradeReport

if TYPE_CHECKING:
    from chunklab.authoring.lesson_source import RuleGroup

HIDDEN_VISIBILITIES = ("after_published", "after_due_date", "hidden")
STDOUT_VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")


@dataclass(frozen=True)
class GradescopeOptions:
    # Gradescope keeps "after_published" tests until the instructor publishes the grades.
    hidden_visibility: str = "after_published"
    # What run_autograder printed is for the instructor's debugging, unless chosen otherwise.
    stdout_visibility: str = "hidden"
    # What a hidden test shows students (`--hidden-feedback`): by default its rule only.
    hidden_feedback: str = "rule"


def rule_groups(lesson_id: str | None) -> tuple[RuleGroup, ...]:
    """The rule groups of a lesson's text; none when it cannot be read (the tests still count)."""
    # The lesson texts are read only for this format: the command line names its options.
    from chunklab.authoring.lesson_source import Rules, read_lesson_text

    if not lesson_id:
        return ()
    try:
        parts = read_lesson_text(lesson_id)
    except (ChunklabError, OSError):
        return ()
    return next((part.groups for part in parts if isinstance(part, Rules)), ())


def group_of(rule: str, groups: tuple[RuleGroup, ...]) -> tuple[int, str]:
    from chunklab.authoring.rule_list import LEFTOVER_TITLE

    for number, group in enumerate(groups, start=1):
        if group.takes(rule):
            return number, group.title
    return len(groups) + 1, LEFTOVER_TITLE


def top_output(report: GradeReport) -> str:
    lines = []
    if report.status != "graded":
        lines.append("Your submission could not be graded, so it scores 0:")
    lines += [problem.message for problem in report.errors]
    if report.warnings:
        lines.append("Notes on your submission (it was graded anyway):")
        lines += [problem.message for problem in report.warnings]
    return "\n".join(lines)


def gradescope_tests(report: GradeReport, options: GradescopeOptions) -> list[dict[str, Any]]:
    groups = rule_groups(report.lesson)
    counted: dict[int, int] = {}
    tests = []
    for test in report.tests:
        rule = test.rule or test.name
        group_number, title = group_of(rule, groups)
        counted[group_number] = counted.get(group_number, 0) + 1
        tests.append(
            {
                "name": rule,
                "name_format": "text",
                "number": f"{group_number}.{counted[group_number]}",
                "score": test.score,
                "max_score": test.max_score,
                "status": "passed" if test.outcome == "passed" else "failed",
                "output": test.feedback,
                "output_format": "text",
                "tags": [title],
                "visibility": "visible"
                if test.visibility == "visible"
                else options.hidden_visibility,
            }
        )
    return tests


def isolation_tests(report: GradeReport) -> list[dict[str, Any]]:
    """For instructors alone (Gradescope's `hidden`): what the sandbox did not keep apart."""
    if not report.isolation_gaps:
        return []
    lines = [f"{gap}: {GAPS.get(gap, gap)}" for gap in report.isolation_gaps]
    return [
        {
            "name": "Sandbox: what this autograder could not keep apart (instructors only)",
            "name_format": "text",
            "score": 0.0,
            "max_score": 0.0,
            "status": "failed",
            "output": "\n".join(lines),
            "output_format": "text",
            "tags": ["sandbox"],
            "visibility": "hidden",
        }
    ]


def gradescope_results(
    report: GradeReport,
    options: GradescopeOptions = GradescopeOptions(),
    extra_data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Gradescope's `results.json` data for a report (hidden feedback already applied)."""
    return {
        "score": report.score,
        "execution_time": round(report.duration_s, DURATION_DIGITS),
        "output": top_output(report),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": options.stdout_visibility,
        "extra_data": {
            "student": report.student,
            "lesson": report.lesson,
            "submission": report.submission,
            "status": report.status,
            "max_score": report.max_score,
            # The kit that graded it, as every report names it: version and suites digest.
            "kit": asdict(report.kit),
            **(extra_data or {}),
        },
        "tests": gradescope_tests(report, options) + isolation_tests(report),
    }
