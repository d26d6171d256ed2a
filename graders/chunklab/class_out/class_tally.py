"""What the class got wrong, counted one report at a time (memory does not grow with reports).

`ClassTally.add(report)` takes each full report as it comes; `summary()`
gives the frozen figures the class report draws. Only a few numbers per
lesson, per rule and per student are kept, never the reports themselves.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from chunklab.class_out.feedback_picture import feedback_lines
from chunklab.class_out.students import student_of
from chunklab.lessons import LESSONS
from chunklab.scoring.report import DURATION_DIGITS, GradeReport, TestOutcome

# Histogram bins: tenths of the lesson's full marks; full marks fall in the last bin.
BINS = 10
SLOWEST_SHOWN = 5
# A kind of problem also counted when a test (not the whole submission) timed out or raised.
TEST_OUTCOME_KINDS = {"timeout": "timeout in a test", "error": "raised in a test"}


@dataclass(frozen=True)
class RuleFigures:
    """A rule of a lesson and how the class fared on it."""

    test: str
    rule: str
    visibility: str
    broken: int
    tested: int
    points_lost: float
    shortest_input: str

    @property
    def rate(self) -> float:
        return self.broken / self.tested if self.tested else 0.0


@dataclass(frozen=True)
class ProblemFigures:
    kind: str
    # "error" (nothing could be tested), "warning", or "test" (one test's outcome).
    level: str
    submissions: int
    example: str


@dataclass(frozen=True)
class Timing:
    duration_s: float
    student: str
    submission: str


@dataclass(frozen=True)
class LessonFigures:
    lesson: str
    submissions: int
    graded: int
    full_marks: int
    max_score: float
    mean_score: float
    histogram: tuple[int, ...]
    rules: tuple[RuleFigures, ...]
    problems: tuple[ProblemFigures, ...]
    slowest: tuple[Timing, ...]


@dataclass(frozen=True)
class StudentScore:
    student: str
    lesson: str
    submission: str
    score: float
    max_score: float
    status: str


@dataclass(frozen=True)
class ClassSummary:
    lessons: tuple[LessonFigures, ...]
    scores: tuple[StudentScore, ...]
    isolation: tuple[tuple[str, int], ...]


def histogram_bin(score: float, max_score: float) -> int:
    if max_score <= 0:
        return 0
    return max(0, min(BINS - 1, int(score / max_score * BINS)))


@dataclass
class RuleCount:
    rule: str
    visibility: str
    broken: int = 0
    tested: int = 0
    points_lost: float = 0.0
    shortest_input: str | None = None


@dataclass
class LessonCount:
    submissions: int = 0
    graded: int = 0
    full_marks: int = 0
    score_total: float = 0.0
    max_score: float = 0.0
    histogram: list[int] = field(default_factory=lambda: [0] * BINS)
    rules: dict[str, RuleCount] = field(default_factory=dict)
    problems: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str], str] = field(default_factory=dict)
    # The slowest submissions so far, as a min-heap of (duration, order, timing).
    slowest: list[tuple[float, int, Timing]] = field(default_factory=list)


class ClassTally:
    """Counts a class's reports as they come."""

    def __init__(self) -> None:
        self._lessons: dict[str, LessonCount] = {}
        self._scores: list[StudentScore] = []
        self._isolation: Counter[str] = Counter()

    def add(self, report: GradeReport) -> None:
        lesson = report.lesson or "unknown"
        count = self._lessons.setdefault(lesson, LessonCount())
        student = student_of(report)
        score, max_score = report.score, report.max_score
        count.submissions += 1
        count.score_total += score
        count.max_score = max(count.max_score, max_score)
        count.histogram[histogram_bin(score, max_score)] += 1
        if report.status == "graded":
            count.graded += 1
            count.full_marks += score == max_score
            self._count_tests(count, report.tests)
        self._count_problems(count, report)
        # As the report file has it, so the report's figures and files agree.
        timing = Timing(round(report.duration_s, DURATION_DIGITS), student, report.submission)
        entry = (timing.duration_s, -len(self._scores), timing)
        if len(count.slowest) < SLOWEST_SHOWN:
            heapq.heappush(count.slowest, entry)
        else:
            heapq.heappushpop(count.slowest, entry)
        self._isolation[report.isolation or "unknown"] += 1
        self._scores.append(
            StudentScore(student, lesson, report.submission, score, max_score, report.status)
        )

    @staticmethod
    def _count_tests(count: LessonCount, tests: Sequence[TestOutcome]) -> None:
        # A rule may be checked by several tests (a public one and its hidden twin):
        # a submission breaks the rule once, however many of its tests fail.
        by_rule: dict[str, list[TestOutcome]] = {}
        for test in tests:
            by_rule.setdefault(test.rule or test.name, []).append(test)
        for text, group in by_rule.items():
            visible = any(t.visibility == "visible" for t in group)
            rule = count.rules.setdefault(text, RuleCount(text, "visible" if visible else "hidden"))
            if visible:
                rule.visibility = "visible"
            rule.tested += 1
            broken = [t for t in group if t.outcome != "passed"]
            if not broken:
                continue
            rule.broken += 1
            for test in broken:
                rule.points_lost += test.max_score - test.score
                given = feedback_lines(test.feedback).get("Input", "")
                if given and (rule.shortest_input is None or len(given) < len(rule.shortest_input)):
                    rule.shortest_input = given

    @staticmethod
    def _count_problems(count: LessonCount, report: GradeReport) -> None:
        found: dict[tuple[str, str], str] = {}
        for level, problems in (("error", report.errors), ("warning", report.warnings)):
            for problem in problems:
                found.setdefault((problem.kind, level), problem.message)
        for test in report.tests:
            kind = TEST_OUTCOME_KINDS.get(test.outcome)
            if kind:
                found.setdefault((kind, "test"), test.rule)
        for found_key, message in found.items():
            count.problems[found_key] += 1
            count.examples.setdefault(found_key, message)

    def summary(self) -> ClassSummary:
        order = {lesson: position for position, lesson in enumerate(LESSONS)}
        lessons = []
        for lesson, count in sorted(self._lessons.items(), key=lambda i: order.get(i[0], 99)):
            rules = sorted(
                (
                    RuleFigures(
                        name,
                        r.rule,
                        r.visibility,
                        r.broken,
                        r.tested,
                        round(r.points_lost, 6),
                        r.shortest_input or "",
                    )
                    for name, r in count.rules.items()
                ),
                key=lambda r: (-r.broken, -r.points_lost, r.test),
            )
            problems = sorted(
                (
                    ProblemFigures(kind, level, n, count.examples[(kind, level)])
                    for (kind, level), n in count.problems.items()
                ),
                key=lambda p: (-p.submissions, p.level, p.kind),
            )
            slowest = tuple(t for _, _, t in sorted(count.slowest, reverse=True))
            lessons.append(
                LessonFigures(
                    lesson=lesson,
                    submissions=count.submissions,
                    graded=count.graded,
                    full_marks=count.full_marks,
                    max_score=count.max_score,
                    mean_score=round(count.score_total / count.submissions, 3),
                    histogram=tuple(count.histogram),
                    rules=tuple(rules),
                    problems=tuple(problems),
                    slowest=slowest,
                )
            )
        return ClassSummary(
            tuple(lessons), tuple(self._scores), tuple(sorted(self._isolation.items()))
        )
