"""The data that flows out of a grading run: per-test outcomes and the grade report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from chunklab.errors import ChunklabError
from chunklab.suites.digest import KitVersion, this_kit

# The values the report schema allows; mypy holds the code to them.
# "not_attempted": the student's copy of the given file is untouched (nothing to grade).
Status = Literal["graded", "error", "not_attempted"]
Outcome = Literal["passed", "failed", "error", "timeout"]
Visibility = Literal["visible", "hidden"]
Isolation = Literal["namespaces", "process", ""]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
# A report's duration as written: to a tenth of a millisecond.
DURATION_DIGITS = 4


class ReportFormatError(ValueError):
    """A report read back (an earlier run's) is not one this version writes."""


def one_of(value: Any, allowed: Any, field: str) -> Any:
    """`value` when it is one of a Literal type's values; else the report is not readable."""
    if value not in get_args(allowed):
        raise ReportFormatError(f"{field} is {value!r}, not one of {get_args(allowed)}")
    return value


def text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ReportFormatError(f"{field} is {type(value).__name__}, not a string")
    return value


def number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ReportFormatError(f"{field} is {type(value).__name__}, not a number")
    return float(value)


def records(value: Any, field: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ReportFormatError(f"{field} is not a list of objects")
    return value


@dataclass(frozen=True)
class TestOutcome:
    """One grader test, as the run saw it."""

    __test__ = False  # not a pytest test class

    name: str
    rule: str
    max_score: float
    outcome: Outcome
    visibility: Visibility
    feedback: str = ""

    @property
    def score(self) -> float:
        # An item's grade is a pure function of its outcome.
        return self.max_score if self.outcome == "passed" else 0.0


@dataclass(frozen=True)
class Problem:
    """An error or a warning about a submission, written for the student."""

    kind: str
    message: str


# Warnings of one kind a report keeps; the rest are counted in one note.
MOST_WARNINGS_OF_A_KIND = 20


def bounded_warnings(warnings: tuple[Problem, ...]) -> tuple[Problem, ...]:
    """At most MOST_WARNINGS_OF_A_KIND of each kind, in order, and a note for each kind cut."""
    kept: list[Problem] = []
    seen: dict[str, int] = {}
    for warning in warnings:
        seen[warning.kind] = seen.get(warning.kind, 0) + 1
        if seen[warning.kind] <= MOST_WARNINGS_OF_A_KIND:
            kept.append(warning)
    if len(kept) == len(warnings):
        return warnings
    notes = [
        Problem(
            "warnings_cut",
            f"{count - MOST_WARNINGS_OF_A_KIND} more {kind} warnings were left out; only the "
            f"first {MOST_WARNINGS_OF_A_KIND} are shown",
        )
        for kind, count in seen.items()
        if count > MOST_WARNINGS_OF_A_KIND
    ]
    return (*kept, *notes)


@dataclass(frozen=True)
class GradeReport:
    lesson: str | None
    submission: str
    status: Status
    tests: tuple[TestOutcome, ...] = ()
    errors: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    duration_s: float = 0.0
    # The lesson's full marks, also for a submission that could not be tested.
    max_score: float = 0.0
    isolation: Isolation = ""
    # Whose work it is: a student folder's name, or the file name without its lesson id.
    student: str = ""
    # What the sandbox could not keep apart on this machine (codes in the README).
    isolation_gaps: tuple[str, ...] = ()
    # The kit that graded it: its version and the digest of its suites and hidden inputs.
    kit: KitVersion = field(default_factory=this_kit)
    # From an LMS download: handed in after the deadline, and the id the LMS knows the student by.
    late: bool = False
    lms_id: str = ""

    def __post_init__(self) -> None:
        # However many files or cells a submission holds, its report stays small.
        object.__setattr__(self, "warnings", bounded_warnings(self.warnings))

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6) if self.status == "graded" else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "lesson": self.lesson,
            "submission": self.submission,
            "status": self.status,
            "score": self.score,
            "max_score": self.max_score,
            # Their fields are all str or float: their own dicts, not `asdict`'s deep copies.
            "tests": [{**vars(t), "score": t.score} for t in self.tests],
            "errors": [dict(vars(p)) for p in self.errors],
            "warnings": [dict(vars(p)) for p in self.warnings],
            "duration_s": round(self.duration_s, DURATION_DIGITS),
            "isolation": self.isolation,
            "isolation_gaps": list(self.isolation_gaps),
            "kit": asdict(self.kit),
            # Only what an LMS download told, so other reports read as they always did.
            **({"late": True} if self.late else {}),
            **({"lms_id": self.lms_id} if self.lms_id else {}),
        }

    @classmethod
    def from_json(cls, data: Any) -> GradeReport:
        """The report `to_json` wrote, read back; `ReportFormatError` when it is not one.

        Score and each test's score are not read: they follow from the outcomes,
        and a report whose written score disagrees is not one this version wrote.
        """
        try:
            report = cls(
                lesson=None if data["lesson"] is None else text(data["lesson"], "lesson"),
                submission=text(data["submission"], "submission"),
                status=one_of(data["status"], Status, "status"),
                tests=tuple(
                    TestOutcome(
                        name=text(t["name"], "test name"),
                        rule=text(t["rule"], "rule"),
                        max_score=number(t["max_score"], "test max_score"),
                        outcome=one_of(t["outcome"], Outcome, "outcome"),
                        visibility=one_of(t["visibility"], Visibility, "visibility"),
                        feedback=text(t.get("feedback", ""), "feedback"),
                    )
                    for t in records(data["tests"], "tests")
                ),
                errors=tuple(problems(data["errors"], "errors")),
                warnings=tuple(problems(data["warnings"], "warnings")),
                duration_s=number(data["duration_s"], "duration_s"),
                max_score=number(data["max_score"], "max_score"),
                isolation=one_of(data["isolation"], Isolation, "isolation"),
                student=text(data["student"], "student"),
                isolation_gaps=tuple(
                    text(gap, "isolation gap") for gap in data.get("isolation_gaps", [])
                ),
                kit=KitVersion(
                    text(data["kit"]["version"], "kit version"),
                    text(data["kit"]["suites"], "kit suites"),
                ),
                late=data.get("late", False) is True,
                lms_id=text(data.get("lms_id", ""), "lms_id"),
            )
        except (KeyError, TypeError) as error:
            raise ReportFormatError(f"not a grade report: {error!r}") from None
        if report.to_json() != dict(data):
            raise ReportFormatError("the report does not read back as it was written")
        return report


def error_report(
    lesson: str | None,
    submission: str,
    problem: Problem,
    *,
    max_score: float = 0.0,
    student: str = "",
    duration_s: float = 0.0,
    isolation: Isolation = "",
    isolation_gaps: tuple[str, ...] = (),
) -> GradeReport:
    """The report of a submission that could not be graded: nothing tested, `problem` says why.

    Its score is 0; `max_score` is still the lesson's full marks when the lesson is known.
    """
    return GradeReport(
        lesson=lesson,
        submission=submission,
        status="error",
        errors=(problem,),
        duration_s=duration_s,
        max_score=max_score,
        isolation=isolation,
        student=student,
        isolation_gaps=isolation_gaps,
    )


def problem_of(error: Exception) -> Problem:
    """What a report says of an error: a kit error by its kind and message; any other is the
    grader's own failure, with what to do about it."""
    if isinstance(error, ChunklabError):
        return Problem(error.kind, str(error))
    return Problem(
        "internal",
        f"the grader failed on this submission "
        f"({type(error).__name__}: {error}); grade it again, and report it "
        "to the kit's maintainers if it happens again",
    )


def problems(value: Any, field: str) -> list[Problem]:
    return [
        Problem(text(p["kind"], f"{field} kind"), text(p["message"], f"{field} message"))
        for p in records(value, field)
    ]
