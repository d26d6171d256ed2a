"""Proving a lesson's suites by mutation: make the mutants, grade them, judge the survivors.

Every mutant is written to a file and graded by the same engine as any
submission (sandboxed workers, the kit's suites and limits). A mutant that
loses points is killed. Each one at full marks is judged on the lesson's rule
checker (see `survivors`); one that no input separated from the reference is
an equivalent mutant, with the reason the kit's authors recorded for it in
`solutions/equivalent_mutants.json` when they have.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chunklab.kit import Kit
from chunklab.lessons import Lesson
from chunklab.mutation.making import Mutant, mutants_of
from chunklab.mutation.survivors import ALLOWED, EQUIVALENT, Finding, examine_all
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport

EQUIVALENCES_FILE = "equivalent_mutants.json"


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    score: str
    killed: bool
    # For a survivor: what its rule checker found.
    finding: Finding | None = None
    # For an equivalent mutant: why it is one, as the kit's authors recorded it.
    why_equivalent: str = ""

    @property
    def kind(self) -> str:
        return "killed" if self.killed or self.finding is None else self.finding.kind


@dataclass(frozen=True)
class LessonProof:
    lesson: str
    results: tuple[MutantResult, ...]
    # An input where the reference itself breaks a rule of the checker.
    reference_problem: Finding | None = None

    def count(self, kind: str) -> int:
        return sum(result.kind == kind for result in self.results)

    @property
    def score(self) -> float:
        """killed / (mutants - equivalent)."""
        judged = len(self.results) - self.count(EQUIVALENT)
        return self.count("killed") / judged if judged else 1.0

    @property
    def ok(self) -> bool:
        judged = {"killed", EQUIVALENT, ALLOWED}
        return self.reference_problem is None and all(r.kind in judged for r in self.results)


def chosen(mutants: list[Mutant], sample: int | None) -> list[Mutant]:
    """`sample` of the mutants, spread evenly (all of them without a sample)."""
    if sample is not None and sample < len(mutants):
        mutants = [mutants[k * len(mutants) // sample] for k in range(sample)]
    return mutants


def recorded_equivalences(kit: Kit) -> dict[str, str]:
    """Mutant key -> why it is equivalent, from the kit's record (none when it has none)."""
    path = kit.solutions / EQUIVALENCES_FILE
    if not path.is_file():
        return {}
    record = json.loads(path.read_text(encoding="utf-8"))
    return {key: entry["why"] for lesson in record.values() for key, entry in lesson.items()}


def grade_mutants(kit: Kit, mutants: list[Mutant], limits: Limits, jobs: int) -> list[GradeReport]:
    """Each mutant's report, graded as a file named for its lesson."""
    with tempfile.TemporaryDirectory(prefix="chunklab-mutants-") as scratch:
        items = []
        for index, mutant in enumerate(mutants):
            path = Path(scratch) / f"{mutant.name}.py"
            path.write_text(mutant.source, encoding="utf-8")
            items.append((index, SubmissionPath(path, f"mutants/{path.name}")))
        reports = dict(grade_many(items, None, kit, limits, jobs))
    return [reports[index] for index in range(len(mutants))]


def full_marks(report: GradeReport) -> bool:
    return report.status == "graded" and report.score == report.max_score > 0


def prove_lessons(
    kit: Kit,
    lessons: Sequence[Lesson],
    limits: Limits,
    jobs: int,
    *,
    sample: int | None = None,
    touching: str | None = None,
) -> list[LessonProof]:
    """Every chosen mutant of each lesson's reference, graded, and each survivor judged."""
    references = {lesson.id: kit.solution(lesson).read_text(encoding="utf-8") for lesson in lessons}
    mutants = [
        mutant
        for lesson in lessons
        for mutant in chosen(mutants_of(lesson.id, references[lesson.id], touching), sample)
    ]
    reports = grade_mutants(kit, mutants, limits, jobs)
    # After grading: the survivors' processes are forked, which must not happen mid-grading.
    survivors = [m for m, report in zip(mutants, reports, strict=True) if full_marks(report)]
    findings, problems = examine_all(
        [(mutant.lesson, mutant.source) for mutant in survivors], references, jobs
    )
    found = {id(mutant): finding for mutant, finding in zip(survivors, findings, strict=True)}
    reasons = recorded_equivalences(kit)
    results = [
        MutantResult(
            mutant,
            f"{report.score:g}/{report.max_score:g}",
            id(mutant) not in found,
            found.get(id(mutant)),
            reasons.get(mutant.key, "") if found.get(id(mutant)) else "",
        )
        for mutant, report in zip(mutants, reports, strict=True)
    ]
    return [
        LessonProof(
            lesson.id,
            tuple(result for result in results if result.mutant.lesson == lesson.id),
            problems[lesson.id],
        )
        for lesson in lessons
    ]
