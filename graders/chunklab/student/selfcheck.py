"""The self-check: a student's own code against the public checks, under grading's rules.

In a notebook, `self_check("char_chunk", globals())` checks what the kernel
holds; `chunklab check` checks a `.py` file or a notebook. Both go through
grading's own path (`grade_lesson_group`, public checks only): the same time
limit for loading and for each call, the same restarts after a timeout, the
same import policy (standard library only) and the same JSON round trip, so
a file's public points from the self-check are its visible points when graded.
`chunklab check` runs the code in the sandbox where one starts; a notebook's
self-check runs the kernel's own functions in this process.
"""

from __future__ import annotations

import ast
import dataclasses
import dis
import linecache
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType, FunctionType, ModuleType
from typing import Any

from chunklab.lessons import Lesson, get_lesson
from chunklab.pipeline.session import GradingSession, grade_lesson_group
from chunklab.reading.source import SubmissionSource
from chunklab.report_out.check_text import check_text
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_main import STANDARD_LIBRARY, blocked_message, outside_imports
from chunklab.sandbox.zygote import Zygote
from chunklab.scoring.report import GradeReport, Problem, error_report
from chunklab.suite_run.in_process import InProcessZygote
from chunklab.suite_run.suite_contents import suite_contents

# The limits of a notebook's self-check: grading's defaults.
LIMITS = Limits()


def run_self_check(
    source: SubmissionSource, limits: Limits, zygote: Zygote | InProcessZygote
) -> GradeReport:
    """The public checks' report of one submission, its workers made by `zygote`."""
    session = GradingSession(kit=None, limits=limits, zygote=zygote)
    try:
        report = grade_lesson_group([(0, source)], session, visible_only=True)[0]
    finally:
        session.close()
    if isinstance(zygote, InProcessZygote) and zygote.interrupted:
        # pytest stops at an interrupt but reports what ran; a partial score would mislead.
        raise KeyboardInterrupt
    return with_public_max_score(report, source.lesson)


def with_public_max_score(report: GradeReport, lesson: Lesson) -> GradeReport:
    """A report whose full marks are those of the public checks, also when nothing ran."""
    if report.status == "graded":
        return report
    return dataclasses.replace(report, max_score=suite_contents(lesson).public_max_score)


def public_error_report(lesson: Lesson, submission: str, problem: Problem) -> GradeReport:
    """Nothing of the submission ran; the report still says the public checks' full marks."""
    return with_public_max_score(error_report(lesson.id, submission, problem), lesson)


# --- a notebook's kernel --------------------------------------------------------------------


def own_functions(namespace: Mapping[str, Any]) -> Iterator[FunctionType]:
    """The functions and methods the kernel's cells defined (not imported ones)."""
    for value in list(namespace.values()):
        # Only functions and classes are looked into: any other object may answer
        # attribute look-ups with anything.
        if not isinstance(value, (FunctionType, type)) or value.__module__ != "__main__":
            continue
        members = list(vars(value).values()) if isinstance(value, type) else [value]
        for member in members:
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if isinstance(member, FunctionType):
                yield member


def code_objects(code: CodeType) -> Iterator[CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from code_objects(constant)


def kernel_imports(namespace: Mapping[str, Any]) -> list[str]:
    """Modules outside the standard library that the code defined in a kernel imports or uses.

    Grading reads the cells' source; here the source is what the kernel keeps of
    each cell that defined a function, with the imports the functions' own code
    makes and the modules they use from other cells.
    """
    found: list[str] = []
    cells: set[str] = set()
    for function in own_functions(namespace):
        for code in code_objects(function.__code__):
            cells.add(code.co_filename)
            found += [i.argval for i in dis.get_instructions(code) if i.opname == "IMPORT_NAME"]
            found += [
                module.__name__
                for name in code.co_names
                if isinstance(module := namespace.get(name), ModuleType)
            ]
    for cell in sorted(cells):
        try:
            tree = ast.parse("".join(linecache.getlines(cell)), cell)
        except (SyntaxError, ValueError):
            continue
        found += outside_imports(tree, STANDARD_LIBRARY)
    # A relative import (an empty name here) names the submission's own module.
    outside = [name for name in found if name and name.split(".")[0] not in STANDARD_LIBRARY]
    return list(dict.fromkeys(outside))


def check_namespace(
    lesson_id: str,
    namespace: Mapping[str, Any],
    submission: str = "notebook",
    limits: Limits | None = None,
) -> GradeReport:
    """Check the function or class a namespace (a kernel's `globals()`) defines."""
    lesson = get_lesson(lesson_id)
    limits = limits or LIMITS
    if not callable(namespace.get(lesson.entry_point)):
        kind = "class" if lesson.entry_kind == "class" else "function"
        return public_error_report(
            lesson,
            submission,
            Problem(
                "missing_definition",
                f"the notebook does not define the {kind} {lesson.entry_point}; run the "
                "exercise cell (keeping the name the stub gives), then run the self-check again.",
            ),
        )
    blocked = kernel_imports(namespace)
    if blocked:
        problem = Problem("import_blocked", blocked_message(blocked))
        return public_error_report(lesson, submission, problem)
    source = SubmissionSource(Path(submission), submission, "notebook", lesson, cells=())
    return run_self_check(source, limits, InProcessZygote(limits, dict(namespace)))


def self_check(lesson_id: str, namespace: Mapping[str, Any]) -> None:
    """Print the self-check of the lesson's function or class, as defined in `namespace`."""
    print(check_text(check_namespace(lesson_id, namespace)))
