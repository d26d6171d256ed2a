"""Self-check equals grading: public points from `check` are the visible points from `grade`.

The files `chunklab validate` grades (references, stubs, alternatives, the notebooks
made of them, and every third known mistake of each lesson, whose other two thirds
take the same path) are graded once in one batch, and checked one by one in this
process, as a notebook's self-check runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from chunklab.authoring.validation import Expectation, as_notebook, expectations
from chunklab.commands.check import check_source
from chunklab.kit import find_kit
from chunklab.lessons import LESSONS
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath, read_submission
from chunklab.sandbox.limits import Limits

# The default limits, as `corpus_graded` grades with (fitted limits keep the mistakes
# that never finish cheap).
LIMITS = Limits()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Expectation]:
    kit = find_kit()
    found = []
    for lesson in LESSONS.values():
        each = expectations(kit, lesson)
        mistakes = [case for case in each if case.kind == "mistake"]
        found += [case for case in each if case.kind != "mistake"] + mistakes[::3]
    folder = tmp_path_factory.mktemp("notebooks")
    found += [as_notebook(c, folder) for c in found if c.kind in ("reference", "alternative")]
    return found


@pytest.fixture(scope="module")
def graded(cases: list[Expectation], corpus_graded) -> dict[Path, dict[str, Any]]:
    # The .py files were graded once for the session (`corpus_graded`); the notebooks now.
    items = [
        (i, SubmissionPath(case.path, str(case.path)))
        for i, case in enumerate(cases)
        if case.path not in corpus_graded
    ]
    reports = dict(grade_many(items, None, find_kit(), LIMITS, os.cpu_count() or 1))
    return {
        case.path: (reports[i] if i in reports else corpus_graded[case.path]).to_json()
        for i, case in enumerate(cases)
    }


def visible(report: dict[str, Any]) -> dict[str, float]:
    return {t["name"]: t["score"] for t in report["tests"] if t["visibility"] == "visible"}


def test_every_file_validate_grades_scores_the_same_public_points(
    cases: list[Expectation], graded: dict[Path, dict[str, Any]]
) -> None:
    kinds = {case.kind for case in cases}
    assert {"reference", "stub", "mistake", "alternative", "alternative notebook"} <= kinds
    differences = []
    for case in cases:
        grade = graded[case.path]
        check = check_source(read_submission(case.path, case.lesson.id), LIMITS, sandbox=False)
        mine = check.to_json()
        if (mine["status"], visible(mine)) != (grade["status"], visible(grade)):
            differences.append((case.kind, case.name, visible(mine), visible(grade)))
        assert mine["score"] == sum(visible(grade).values())
    assert differences == []
