"""The class's gradebooks and `summary.json`: per student and lesson, per student, per rule.

Every CSV cell is inert (`class_out.csv_file`): what does not show as itself is
escaped, and a text a spreadsheet would read as a formula gets a leading
apostrophe, so opening the file never runs anything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from chunklab.class_out.csv_file import csv_text
from chunklab.identity import same_student
from chunklab.lessons import LESSONS
from chunklab.report_out.table import Outline
from chunklab.scoring.report import GradeReport, TestOutcome

GRADEBOOK_COLUMNS = (
    "student",
    "lesson",
    "score",
    "max_score",
    "percent",
    "status",
    "first_error",
    "submission",
    "roster",
    "late",
    "note",
)
RULES_COLUMNS = ("student", "lesson", "rule", "outcome", "points")
NO_SUBMISSION = "no submission was found for this student and lesson"
NOT_IN_ROSTER = "not in roster"
# Rows that hold no work handed in: never part of a mean, never a 0 in an LMS file unless asked.
NOTHING_HANDED_IN = ("missing", "not_attempted")
# A roster's student whose submission was found but not graded (the run was interrupted
# first): never a 0 in an LMS file, even when missing students get one.
NOT_GRADED = "not_graded"
NOT_GRADED_YET = "not graded: the run was interrupted before this submission; rerun with --resume"


@dataclass(frozen=True)
class RuleResult:
    rule: str
    outcome: str  # "passed" when every test of the rule passed, else the first other outcome
    points: float


@dataclass(frozen=True)
class Entry:
    """One student's result in one lesson: a graded submission, an error, or `missing`."""

    student: str
    lesson: str
    score: float
    max_score: float
    status: str
    first_error: str = ""
    submission: str = ""
    rules: tuple[RuleResult, ...] = ()
    # "not in roster" when a roster was given and does not list the student.
    roster: str = ""
    # From an LMS download: the id the LMS knows the student by, and a late hand-in.
    lms_id: str = ""
    late: bool = False
    # What a person should know about the row (a student who handed in twice).
    note: str = ""

    @property
    def percent(self) -> float | None:
        return round(100 * self.score / self.max_score, 1) if self.max_score else None


def rule_results(tests: Sequence[TestOutcome]) -> tuple[RuleResult, ...]:
    """The report's tests, one result per rule, rules in the order the suite ran them."""
    points: dict[str, float] = {}
    outcomes: dict[str, str] = {}
    for test in tests:
        rule = test.rule or test.name
        points[rule] = points.get(rule, 0.0) + test.score
        if outcomes.get(rule, "passed") == "passed":
            outcomes[rule] = test.outcome
    return tuple(RuleResult(rule, outcomes[rule], round(points[rule], 6)) for rule in points)


def entry_of(report: GradeReport) -> Entry:
    """What the gradebooks need of a report (kept instead of the report itself)."""
    return Entry(
        student=report.student or report.submission,
        lesson=report.lesson or "",
        score=report.score,
        max_score=report.max_score,
        status=report.status,
        first_error=" ".join(report.errors[0].message.split()) if report.errors else "",
        submission=report.submission,
        rules=rule_results(report.tests),
        lms_id=report.lms_id,
        late=report.late,
    )


def best_entries(entries: Sequence[Entry]) -> list[Entry]:
    """One entry per student and lesson: the best score when a student handed in twice.

    Students are told apart by `same_student`, so `alice` and `Alice ` are one;
    each keeps the spelling first seen, and a row kept over others says so.
    """
    spelling: dict[str, str] = {}
    best: dict[tuple[str, str], Entry] = {}
    others: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        name = spelling.setdefault(same_student(entry.student), entry.student)
        key = (same_student(name), entry.lesson)
        entry = replace(entry, student=name)
        if key not in best:
            best[key] = entry
            continue
        if entry.score > best[key].score:
            best[key], entry = entry, best[key]
        others.setdefault(key, []).append(entry)
    for key, dropped in others.items():
        kept = best[key]
        left = "; ".join(f"{e.submission or '?'} ({number(e.score)})" for e in dropped)
        best[key] = replace(
            kept,
            note=f"handed in {len(dropped) + 1} times; the best score is kept, "
            f"{number(kept.score)} from {kept.submission or '?'}, over {left}",
        )
    return list(best.values())


def number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def lessons_of(entries: Sequence[Entry]) -> list[str]:
    """The lessons in the class, in the kit's order; unknown ones (errors) left out."""
    present = {entry.lesson for entry in entries}
    return [lesson for lesson in LESSONS if lesson in present]


def gradebook_csv(entries: Sequence[Entry]) -> str:
    """`gradebook.csv`: one row per student and lesson."""
    return csv_text(
        GRADEBOOK_COLUMNS,
        (
            (
                e.student,
                e.lesson,
                number(e.score),
                number(e.max_score),
                number(e.percent),
                e.status,
                e.first_error,
                e.submission,
                e.roster,
                "true" if e.late else "",
                e.note,
            )
            for e in entries
        ),
    )


def by_student(entries: Sequence[Entry]) -> dict[str, dict[str, Entry]]:
    """Each student's entry per lesson, students in the order first seen."""
    table: dict[str, dict[str, Entry]] = {}
    for entry in entries:
        table.setdefault(entry.student, {})[entry.lesson] = entry
    return table


def gradebook_wide_csv(entries: Sequence[Entry]) -> str:
    """`gradebook_wide.csv`: one row per student, a score column per lesson, and the total."""
    lessons = lessons_of(entries)
    rows = []
    for student, results in by_student(entries).items():
        scores = [results[lesson].score if lesson in results else 0.0 for lesson in lessons]
        # A submission the run did not reach has no score yet, nor has the total.
        waiting = [lesson in results and results[lesson].status == NOT_GRADED for lesson in lessons]
        shown = ["" if wait else number(score) for score, wait in zip(scores, waiting, strict=True)]
        total = "" if any(waiting) else number(round(sum(scores), 6))
        rows.append((student, *shown, total))
    return csv_text(("student", *lessons, "total"), rows)


def rules_csv(entries: Sequence[Entry]) -> str:
    """`rules.csv`: one row per student, lesson and rule, with its outcome and points."""
    return csv_text(
        RULES_COLUMNS,
        (
            (e.student, e.lesson, rule.rule, rule.outcome, number(rule.points))
            for e in entries
            for rule in e.rules
        ),
    )


# The key of submissions whose lesson could not be told (no lesson id has brackets).
UNKNOWN_LESSON = "(unknown)"


def summary(outlines: Sequence[Outline], duration_s: float) -> dict[str, Any]:
    """`summary.json`: submissions by status and, per lesson, full marks and the mean score."""
    lessons: dict[str, dict[str, Any]] = {}
    for each in outlines:
        entry = lessons.setdefault(
            each.lesson or UNKNOWN_LESSON, {"submissions": 0, "full_marks": 0, "scores": []}
        )
        entry["submissions"] += 1
        if each.status not in NOTHING_HANDED_IN:  # no work is not a score of 0 in the mean
            entry["scores"].append(each.score)
        if each.status == "graded" and each.score == each.max_score:
            entry["full_marks"] += 1
    for entry in lessons.values():
        scores = entry.pop("scores")
        entry["mean_score"] = round(sum(scores) / len(scores), 3) if scores else None
    return {
        "submissions": len(outlines),
        "statuses": dict(Counter(each.status for each in outlines)),
        "lessons": lessons,
        "duration_s": round(duration_s, 3),
    }
