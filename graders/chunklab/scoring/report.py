"""The data that flows out of a grading run: per-test outcomes and the grade report."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

OUTCOMES = ("passed", "failed", "error", "timeout")


@dataclass(frozen=True)
class TestOutcome:
    """One grader test, as the run saw it."""

    __test__ = False  # not a pytest test class

    name: str
    rule: str
    max_score: float
    outcome: str
    visibility: str
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


@dataclass(frozen=True)
class GradeReport:
    lesson: str | None
    submission: str
    status: str  # "graded" or "error"
    tests: tuple[TestOutcome, ...] = ()
    errors: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    duration_s: float = 0.0
    # The lesson's full marks, also for a submission that could not be tested.
    max_score: float = 0.0
    isolation: str = ""
    # Whose work it is: a student folder's name, or the file name without its lesson id.
    student: str = ""
    # What the sandbox could not keep apart on this machine (codes in the README).
    isolation_gaps: tuple[str, ...] = ()

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
            "tests": [{**asdict(t), "score": t.score} for t in self.tests],
            "errors": [asdict(p) for p in self.errors],
            "warnings": [asdict(p) for p in self.warnings],
            "duration_s": round(self.duration_s, 4),
            "isolation": self.isolation,
            "isolation_gaps": list(self.isolation_gaps),
        }
