"""`chunklab validate`: every lesson's references, stubs, mistakes, alternatives, notebooks."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chunklab.authoring.validation import (
    Expectation,
    Verdict,
    as_notebook,
    expectations,
    judge,
    notebook_problem,
    weak_figures,
)
from chunklab.kit import Kit, find_kit
from chunklab.lessons import LESSONS, Lesson, get_lesson
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath
from chunklab.report_out.table import validation_table
from chunklab.sandbox.limits import Limits

# Proving by mutation: the default limit of a call (the long-document checks state their
# calls' own time up to it, so a tighter one would fail valid solutions), and a tighter
# limit for all of a mutant's calls: a valid file needs well under a second in all.
CALL_SECONDS = Limits().call_seconds
SUBMISSION_SECONDS = 20.0


def grade_expectations(kit: Kit, cases: list[Expectation]) -> list[Verdict]:
    """Grade every case in one batch; each one's lesson comes from its path or notebook."""
    items = [(i, SubmissionPath(case.path, str(case.path))) for i, case in enumerate(cases)]
    # The limits `chunklab grade` has by default: what validate proves is what a class gets.
    reports = dict(grade_many(items, None, kit, Limits(), os.cpu_count() or 1))
    return [judge(case, reports[i]) for i, case in enumerate(cases)]


def notebook_verdict(lesson: Lesson, notebook: Path) -> Verdict:
    problem = notebook_problem(notebook)
    case = Expectation(lesson, "notebook", notebook, "runs")
    return Verdict(case, not problem, "", problem or "runs top to bottom without an error")


def validate_command(lesson_ids: Sequence[str] = ()) -> int:
    """Validate the lessons named (every lesson when none is), in the registry's order."""
    kit = find_kit()
    named = {get_lesson(lesson_id).id for lesson_id in lesson_ids}
    lessons = [lesson for lesson in LESSONS.values() if not named or lesson.id in named]
    with tempfile.TemporaryDirectory(prefix="chunklab-validate-") as scratch:
        cases = [case for lesson in lessons for case in expectations(kit, lesson)]
        cases += [
            as_notebook(case, Path(scratch))
            for case in cases
            if case.kind in ("reference", "alternative")
        ]
        verdicts = grade_expectations(kit, cases)
    # After grading: grading forks processes, which must not happen while threads run.
    with ThreadPoolExecutor(max_workers=len(lessons)) as pool:
        verdicts += pool.map(lambda lesson: notebook_verdict(lesson, kit.notebook(lesson)), lessons)
    order = {lesson: number for number, lesson in enumerate(LESSONS)}
    verdicts.sort(key=lambda verdict: order[verdict.expectation.lesson.id])
    sys.stdout.write(validation_table(verdicts))
    sys.stdout.write(weak_figures(verdicts))
    return 0 if all(v.ok for v in verdicts) else 1


def validate_mutants_command(
    lesson_ids: Sequence[str] = (),
    jobs: int = os.cpu_count() or 1,
    sample: int | None = None,
    touching: str | None = None,
) -> int:
    """`validate --mutants`: the table of each lesson's mutants; 1 when any has a gap."""
    from chunklab.mutation.proving import prove_lessons
    from chunklab.mutation.table import mutation_table

    kit = find_kit()
    named = {get_lesson(lesson_id).id for lesson_id in lesson_ids}
    lessons = [lesson for lesson in LESSONS.values() if not named or lesson.id in named]
    limits = Limits(call_seconds=CALL_SECONDS, submission_seconds=SUBMISSION_SECONDS)
    proofs = prove_lessons(kit, lessons, limits, jobs, sample=sample, touching=touching)
    sys.stdout.write(mutation_table(proofs))
    return 0 if all(proof.ok for proof in proofs) else 1
