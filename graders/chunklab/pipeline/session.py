"""Grades submissions: read them, run each in a worker, run the suite, score the outcomes.

Submissions of the same lesson are graded in one pytest session (each in
its own worker, one after the other), which keeps pytest's start-up cost
out of every single submission. A session can take its submissions as it
reaches them (`FedSession`), so the work is shared out one submission at a
time among grading processes.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING

from chunklab.errors import (
    BrokenProtocolError,
    HelperLeftBehindError,
    ImportBlockedError,
    KitLayoutError,
    MissingDefinitionError,
    OutOfMemoryError,
    SubmissionError,
    SubmissionTimeoutError,
    SyntaxErrorInSubmission,
)
from chunklab.kit import Kit, load_reference
from chunklab.lessons import Lesson
from chunklab.reading.lesson_of import likely_lesson
from chunklab.reading.read import SubmissionPath, read_found
from chunklab.reading.source import SubmissionSource
from chunklab.sandbox.answer_shape import LoadAnswer, LoadProblem
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.fitted_limits import ReferenceTimes
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.scoring.report import GradeReport, Problem, error_report, problem_of
from chunklab.suite_run.plugin import EmptySlot, SuiteEntry
from chunklab.suite_run.pytest_run import SuiteRun, run_suites
from chunklab.suite_run.submission_proxy import SubmissionProxy

if TYPE_CHECKING:  # a self-check's (`chunklab check`); grading never makes one
    from chunklab.suite_run.in_process import InProcessZygote


@dataclass
class GradingSession:
    """What one grading process keeps between submissions: its zygote and lesson data."""

    kit: Kit | None  # None for a self-check: the public checks need no reference
    limits: Limits
    # Where workers come from: the sandbox, or this process for a self-check without one.
    zygote: Zygote | InProcessZygote | None = None
    references: dict[str, ModuleType] = field(default_factory=dict)
    max_scores: dict[str, float] = field(default_factory=dict)
    # The reference's time on each call seen, kept for every later submission.
    reference_times: dict[str, ReferenceTimes] = field(default_factory=dict)

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

    def times(self, lesson: Lesson) -> ReferenceTimes:
        """The reference's time per call; without the kit (a self-check), none: the floors."""
        if lesson.id not in self.reference_times:
            reference = self.reference(lesson) if self.kit is not None else None
            self.reference_times[lesson.id] = ReferenceTimes(reference)
        return self.reference_times[lesson.id]

    def max_score(self, lesson: Lesson) -> float:
        if lesson.id not in self.max_scores:
            # Only a submission that cannot be graded needs it: a collection of its own.
            from chunklab.suite_run.suite_contents import suite_contents

            self.max_scores[lesson.id] = suite_contents(lesson).max_score
        return self.max_scores[lesson.id]

    def __post_init__(self) -> None:
        self.sandbox()  # starts now (unless given), while the suites are imported

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
        self.closed = False
        # Set when an answer broke the protocol during the tests: then nothing is graded.
        self.error: SubmissionError | None = None

    def open(self) -> SubmissionProxy:
        self.started = time.monotonic()
        try:
            self.backend = SandboxBackend(
                self.session.sandbox(),
                self.source.cells,
                self.session.limits,
                local_modules=self.source.local_modules,
                reference=self.session.times(self.source.lesson),
            )
            loaded = self.backend.load()
            self.warnings = load_warnings(self.source, loaded, self.session.limits.memory_mb)
            require_entry_point(self.source.lesson, loaded.defined, self.warnings)
        except BaseException:
            # Nothing will be tested (whatever failed, even the grader): its worker,
            # and every process it started, ends now.
            self.close()
            raise
        return SubmissionProxy(self.backend)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.backend is not None:
            self.backend.close()
            if self.backend.broken:
                self.error = BrokenProtocolError(self.backend.broken)
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
    return grade_read([read_item(item, lesson_id, session) for item in items], session)


def grade_read(
    reads: Sequence[SubmissionSource | GradeReport], session: GradingSession
) -> list[GradeReport]:
    """A report for every submission read (or already reported, when it could not be)."""
    reports: dict[int, GradeReport] = {}
    by_lesson: dict[str, list[tuple[int, SubmissionSource]]] = {}
    for index, read in enumerate(reads):
        if isinstance(read, GradeReport):
            reports[index] = read
            continue
        by_lesson.setdefault(read.lesson.id, []).append((index, read))
    for group in by_lesson.values():
        reports.update(grade_lesson_group(group, session))
    return [reports[index] for index in range(len(reads))]


def read_item(
    item: SubmissionPath, lesson_id: str | None, session: GradingSession
) -> SubmissionSource | GradeReport:
    """The submission, read; or the report of why it cannot be."""
    started = time.monotonic()
    try:
        return read_found(item, lesson_id, session.limits.max_submission_kb * 1024)
    except SubmissionError as error:
        return refused_report(item, lesson_id, error, session, time.monotonic() - started)


def refused_report(
    item: SubmissionPath,
    lesson_id: str | None,
    error: SubmissionError,
    session: GradingSession,
    duration: float = 0.0,
) -> GradeReport:
    """The report of a submission that could not be read, for the lesson it was most likely."""
    lesson = likely_lesson(item.path, item.lesson or lesson_id)
    return error_report(
        lesson.id if lesson else None,
        item.display,
        problem_of(error),
        max_score=session.max_score(lesson) if lesson else 0.0,
        duration_s=duration,
        student=item.student,
    )


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
    return {index: report_of(run, f"s{index}", opened[f"s{index}"], session) for index, _ in group}


def report_of(
    run: SuiteRun, key: str, each: OpenedSubmission, session: GradingSession
) -> GradeReport:
    """The report of one submission a suite run graded under `key`."""
    source = each.source
    error = run.load_errors.get(key) or each.error
    if error is not None:
        return error_report(
            source.lesson.id,
            source.display,
            problem_of(error),
            max_score=session.max_score(source.lesson),
            duration_s=each.duration,
            isolation=session.sandbox().isolation,
            student=source.student,
            isolation_gaps=session.sandbox().gaps,
        )
    outcomes = run.outcomes[key]
    return GradeReport(
        lesson=source.lesson.id,
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


# Gives the next submission to grade, preferably of the lesson named (None: any lesson),
# and how many more of its lesson wait; None when there is none to take now.
Take = Callable[[str | None], tuple[int, SubmissionPath, int] | None]


class FedSession:
    """One pytest session whose submissions are taken one at a time, as it reaches each.

    A session has a number of slots; each slot takes its submission when the
    session gets to it, so no submission waits behind a slow one in a batch
    made up front. A submission read as another lesson than the session's is
    graded after it, in a session of its own lesson.
    """

    def __init__(self, take: Take, lesson_id: str | None, session: GradingSession) -> None:
        self._take = take
        self.lesson_id = lesson_id
        self.session = session
        # Every submission taken, in order: what to grade again, one at a time, on a defect.
        self.taken: list[tuple[int, SubmissionPath]] = []
        self.reports: dict[int, GradeReport] = {}
        self.other_lessons: list[tuple[int, SubmissionSource]] = []
        self.slots: dict[str, tuple[int, OpenedSubmission]] = {}
        self.left = 0

    def grade(self, most_slots: int) -> dict[int, GradeReport]:
        """Reports of every submission taken (none when there was nothing to take)."""
        first = self._read_next(None)
        if first is not None:
            index, source = first
            lesson = source.lesson
            # No more slots than submissions likely to fill them: an empty one costs time too.
            slots = min(most_slots, 1 + self.left)
            entries = [
                SuiteEntry(f"s{n}", self._opener(f"s{n}", lesson), self._closer(f"s{n}"))
                for n in range(slots)
            ]
            self.slots["s0"] = (index, OpenedSubmission(source, self.session))
            run = run_suites(lesson, entries, reference=self.session.reference(lesson))
            for key, (index, each) in self.slots.items():
                self.reports[index] = report_of(run, key, each, self.session)
        by_lesson: dict[str, list[tuple[int, SubmissionSource]]] = {}
        for index, source in self.other_lessons:
            by_lesson.setdefault(source.lesson.id, []).append((index, source))
        for group in by_lesson.values():
            self.reports.update(grade_lesson_group(group, self.session))
        return self.reports

    def _opener(self, key: str, lesson: Lesson) -> Callable[[], SubmissionProxy]:
        def open_slot() -> SubmissionProxy:
            if key not in self.slots:
                taken = self._read_next(lesson)
                if taken is None:
                    raise EmptySlot(key)
                self.slots[key] = (taken[0], OpenedSubmission(taken[1], self.session))
            return self.slots[key][1].open()

        return open_slot

    def _closer(self, key: str) -> Callable[[], None]:
        return lambda: self.slots[key][1].close()

    def _read_next(self, lesson: Lesson | None) -> tuple[int, SubmissionSource] | None:
        """The next submission of `lesson`, read; errors in reading are reported on the way."""
        while (taken := self._take(lesson.id if lesson else None)) is not None:
            index, item, self.left = taken
            self.taken.append((index, item))
            read = read_item(item, self.lesson_id, self.session)
            if isinstance(read, GradeReport):
                self.reports[index] = read
                continue
            source = read
            if lesson is None or source.lesson.id == lesson.id:
                return index, source
            self.other_lessons.append((index, source))
        return None


def load_warnings(
    source: SubmissionSource, loaded: LoadAnswer, memory_mb: int = 0
) -> tuple[Problem, ...]:
    """A syntax error in a `.py` file stops grading; in a notebook only its cell is lost.

    A module from outside the standard library stops grading either way; so
    does running out of memory at the top level of a `.py` file.
    """
    problems = loaded.problems
    for problem in problems:
        if problem.kind == "import_blocked":
            raise blocked_import(source, problem)
        if problem.kind == "too_slow" and (
            source.kind == "python" or names_entry_point(source, problem.cell)
        ):
            # A file is one piece of code; in a notebook, the cell that defines the lesson's
            # name is needed. A slow cell that is not costs a warning, as a failing one does.
            raise SubmissionTimeoutError(problem.message)
    if source.kind == "python":
        for problem in problems:
            if problem.kind == "syntax_error":
                raise SyntaxErrorInSubmission(
                    f"Python cannot read your file: {problem.message}. Fix it and hand it in again."
                )
            if problem.kind == "out_of_memory":
                raise OutOfMemoryError(
                    f"{out_of_memory(memory_mb)} while it was being loaded, before any test "
                    f"could start: {problem.message.strip()}"
                )
    suffix = " (the rest of the notebook still counts)" if source.kind == "notebook" else ""
    kind = "cell_failed" if source.kind == "notebook" else "raised_on_load"
    warnings = tuple(
        Problem(
            "cell_too_slow" if problem.kind == "too_slow" else kind,
            loaded_message(problem, memory_mb) + suffix,
        )
        for problem in problems
    )
    if loaded.left_out:  # only a notebook has more cells than are shown
        warnings += (
            Problem(
                "warnings_cut",
                f"{loaded.left_out} more cells failed; only the first {len(problems)} are shown",
            ),
        )
    return warnings


def names_entry_point(source: SubmissionSource, cell: int | None) -> bool:
    """Whether the cell binds the lesson's name anywhere in its code (or cannot be read)."""
    name = source.lesson.entry_point
    for each in source.cells:
        if each.index == cell:
            try:
                tree = ast.parse(each.source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return True
            return any(binds(node, name) for node in ast.walk(tree))
    return True


def binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name == name
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Store)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == name or node.name == "*"
    return False


def blocked_import(source: SubmissionSource, problem: LoadProblem) -> SubmissionError:
    """The error of a blocked import: of the student's own module left behind, it says why."""
    behind = {module.name: module for module in source.left_behind}
    own = [behind.get(name.split(".")[0]) for name in problem.modules]
    if problem.modules and all(own):
        return HelperLeftBehindError(
            " ".join(dict.fromkeys(module.why for module in own if module is not None))
        )
    return ImportBlockedError(problem.message)


def out_of_memory(memory_mb: int) -> str:
    limit = f" ({memory_mb} MB)" if memory_mb else ""
    return f"your code went over the memory limit{limit}"


def loaded_message(problem: LoadProblem, memory_mb: int) -> str:
    message = problem.message.strip()
    if problem.kind == "out_of_memory":
        return f"{out_of_memory(memory_mb)}: {message}"
    return message


def require_entry_point(
    lesson: Lesson, defined: frozenset[str], warnings: tuple[Problem, ...]
) -> None:
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
