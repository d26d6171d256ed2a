"""Grades submissions: read them, run each in a worker, run the suite, score the outcomes.

Submissions of the same lesson are graded in one pytest session (each in
its own worker, one after the other), which keeps pytest's start-up cost
out of every single submission.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType

from chunklab.errors import (
    ImportBlockedError,
    KitLayoutError,
    MissingDefinitionError,
    SubmissionError,
    SyntaxErrorInSubmission,
)
from chunklab.kit import Kit, load_reference
from chunklab.lessons import Lesson
from chunklab.reading.read import SubmissionPath, likely_lesson, read_submission
from chunklab.reading.source import SubmissionSource
from chunklab.running.in_process import InProcessZygote
from chunklab.running.plugin import SuiteEntry
from chunklab.running.pytest_run import run_suites, suite_max_score
from chunklab.running.submission_proxy import SubmissionProxy
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.scoring.report import GradeReport, Isolation, Problem


@dataclass
class GradingSession:
    """What one grading process keeps between submissions: its zygote and lesson data."""

    kit: Kit | None  # None for a self-check: the public checks need no reference
    limits: Limits
    # Where workers come from: the sandbox, or this process for a self-check without one.
    zygote: Zygote | InProcessZygote | None = None
    references: dict[str, ModuleType] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)

    def sandbox(self) -> Zygote | InProcessZygote:
        if self.zygote is None:
            self.zygote = Zygote(ZygoteSettings(self.limits))
        return self.zygote

    def reference(self, lesson: Lesson) -> ModuleType:
        if self.kit is None:
            raise KitLayoutError("the hidden checks need the kit's reference solutions")
        if lesson.id not in self.references:
            self.references[lesson.id] = load_reference(self.kit, lesson)
        return self.references[lesson.id]

    def max_score(self, lesson: Lesson) -> float:
        if lesson.id not in self.max_scores:
            self.max_scores[lesson.id] = suite_max_score(lesson)
        return self.max_scores[lesson.id]

    def __post_init__(self) -> None:
        self.sandbox()  # starts now, while pytest and the suites are imported

    def close(self) -> None:
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None


class OpenedSubmission:
    """One submission while its tests run: its worker and what loading it reported."""

    def __init__(self, source: SubmissionSource, session: GradingSession) -> None:
        self.source = source
        self.session = session
        self.backend: SandboxBackend | None = None
        self.warnings: tuple[Problem, ...] = ()
        self.started = 0.0
        self.duration = 0.0

    def open(self) -> SubmissionProxy:
        self.started = time.monotonic()
        self.backend = SandboxBackend(
            self.session.sandbox(),
            self.source.cells,
            self.session.limits,
            local_modules=self.source.local_modules,
        )
        loaded = self.backend.load()
        self.warnings = load_warnings(self.source, loaded["problems"])
        require_entry_point(self.source.lesson, loaded["defined"], self.warnings)
        return SubmissionProxy(self.backend)

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            if self.backend.output_was_cut:
                self.warnings += (
                    Problem(
                        "output_cut",
                        f"your code printed more than {self.session.limits.output_kb} "
                        "KB; the rest was not kept",
                    ),
                )
        self.duration = time.monotonic() - self.started


def grade_submissions(
    items: Sequence[SubmissionPath], lesson_id: str | None, session: GradingSession
) -> list[GradeReport]:
    """A report for every item, in the same order."""
    reports: dict[int, GradeReport] = {}
    by_lesson: dict[str, list[tuple[int, SubmissionSource]]] = {}
    for index, item in enumerate(items):
        started = time.monotonic()
        try:
            limit = session.limits.max_submission_kb * 1024
            source = read_submission(item.path, item.lesson or lesson_id, item.display, limit)
        except SubmissionError as error:
            lesson = likely_lesson(item.path, item.lesson or lesson_id)
            reports[index] = error_report(
                item.display, lesson, error, session, time.monotonic() - started, item.student
            )
            continue
        if item.student:  # whose work it is was told when it was found (a folder's name)
            source = replace(source, student=item.student)
        by_lesson.setdefault(source.lesson.id, []).append((index, source))
    for group in by_lesson.values():
        reports.update(grade_lesson_group(group, session))
    return [reports[index] for index in range(len(items))]


def grade_lesson_group(
    group: list[tuple[int, SubmissionSource]],
    session: GradingSession,
    *,
    visible_only: bool = False,
) -> dict[int, GradeReport]:
    """Reports for submissions of one lesson; `visible_only` for a self-check's public checks."""
    lesson = group[0][1].lesson
    opened = {f"s{index}": OpenedSubmission(source, session) for index, source in group}
    entries = [SuiteEntry(key, each.open, each.close) for key, each in opened.items()]
    reference = None if visible_only else session.reference(lesson)
    run = run_suites(lesson, entries, reference=reference, visible_only=visible_only)
    reports = {}
    for index, source in group:
        key = f"s{index}"
        each = opened[key]
        if key in run.load_errors:
            reports[index] = error_report(
                source.display,
                lesson,
                run.load_errors[key],
                session,
                each.duration,
                isolation=session.sandbox().isolation,
                student=source.student,
                isolation_gaps=session.sandbox().gaps,
            )
            continue
        outcomes = run.outcomes[key]
        reports[index] = GradeReport(
            lesson=lesson.id,
            submission=source.display,
            status="graded",
            tests=tuple(outcomes),
            warnings=source.warnings + each.warnings,
            duration_s=each.duration,
            max_score=sum(t.max_score for t in outcomes),
            isolation=session.sandbox().isolation,
            student=source.student,
            isolation_gaps=session.sandbox().gaps,
        )
    return reports


def error_report(
    display: str,
    lesson: Lesson | None,
    error: SubmissionError,
    session: GradingSession,
    duration: float,
    student: str = "",
    isolation: Isolation = "",
    isolation_gaps: tuple[str, ...] = (),
) -> GradeReport:
    return GradeReport(
        student=student,
        lesson=lesson.id if lesson else None,
        submission=display,
        status="error",
        errors=(Problem(error.kind, str(error)),),
        duration_s=duration,
        max_score=session.max_score(lesson) if lesson else 0.0,
        isolation=isolation,
        isolation_gaps=isolation_gaps,
    )


def load_warnings(source: SubmissionSource, problems: list[dict]) -> tuple[Problem, ...]:
    """A syntax error in a `.py` file stops grading; in a notebook only its cell is lost.

    A module from outside the standard library stops grading either way.
    """
    for problem in problems:
        if problem["kind"] == "import_blocked":
            raise ImportBlockedError(problem["message"])
    if source.kind == "python":
        for problem in problems:
            if problem["kind"] == "syntax_error":
                raise SyntaxErrorInSubmission(
                    f"Python cannot read your file: {problem['message']}. "
                    "Fix it and hand it in again."
                )
    suffix = " (the rest of the notebook still counts)" if source.kind == "notebook" else ""
    kind = "cell_failed" if source.kind == "notebook" else "raised_on_load"
    return tuple(Problem(kind, str(problem["message"]).strip() + suffix) for problem in problems)


def require_entry_point(lesson: Lesson, defined: list[str], warnings: tuple[Problem, ...]) -> None:
    if lesson.entry_point in defined:
        return
    what = "class" if lesson.entry_kind == "class" else "function"
    hint = ""
    if warnings:
        hint = f" Part of your code failed before it could define it: {warnings[0].message}"
    raise MissingDefinitionError(
        f"your code does not define the {what} `{lesson.entry_point}` that the lesson "
        f"{lesson.id} asks for; check its name and that it is at the top level.{hint}"
    )
