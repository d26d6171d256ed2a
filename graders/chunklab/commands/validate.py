"""`chunklab validate`: every lesson's references, stubs, mistakes, alternatives, notebooks."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from chunklab.batch import grade_many
from chunklab.kit import find_kit
from chunklab.lessons import LESSONS, Lesson
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits
from chunklab.validation import (
    Expectation,
    Verdict,
    as_notebook,
    expectations,
    judge,
    notebook_problem,
)
from chunklab.writing.table import validation_table


def grade_expectations(lesson: Lesson, cases: list[Expectation]) -> list[Verdict]:
    items = [(i, SubmissionPath(case.path, str(case.path))) for i, case in enumerate(cases)]
    reports = dict(
        grade_many(items, lesson.id, find_kit(Path.cwd()), Limits(), os.cpu_count() or 1)
    )
    return [judge(case, reports[i]) for i, case in enumerate(cases)]


def notebook_verdicts(lesson: Lesson, notebook: Path) -> Iterable[Verdict]:
    problem = notebook_problem(notebook)
    case = Expectation(lesson, "notebook", notebook, "runs")
    yield Verdict(case, not problem, "", problem or "runs top to bottom without an error")


def validate_command() -> int:
    kit = find_kit(Path.cwd())
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="chunklab-validate-") as scratch:
        for lesson in LESSONS.values():
            cases = expectations(kit, lesson)
            cases += [
                as_notebook(case, Path(scratch))
                for case in cases
                if case.kind in ("reference", "alternative")
            ]
            verdicts += grade_expectations(lesson, cases)
            verdicts += notebook_verdicts(lesson, kit.notebook(lesson))
    sys.stdout.write(validation_table(verdicts))
    return 0 if all(v.ok for v in verdicts) else 1
