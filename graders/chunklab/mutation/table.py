"""The table of `chunklab validate --mutants`: per lesson its counts and score, then each
gap with its diff and input, and each survivor the rules allow or cannot tell apart."""

from __future__ import annotations

from collections.abc import Sequence
from textwrap import indent

from chunklab.mutation.proving import LessonProof, MutantResult
from chunklab.mutation.survivors import ALLOWED, EQUIVALENT, GAP, UNEXAMINED

COLUMNS = ("lesson", "mutants", "killed", "equivalent", "allowed", "gaps", "score")


def mutation_table(proofs: Sequence[LessonProof]) -> str:
    rows = [COLUMNS] + [
        (
            proof.lesson,
            str(len(proof.results)),
            str(proof.count("killed")),
            str(proof.count(EQUIVALENT)),
            str(proof.count(ALLOWED)),
            str(proof.count(GAP) + proof.count(UNEXAMINED)),
            f"{proof.score:.1%}",
        )
        for proof in proofs
    ]
    widths = [max(len(row[k]) for row in rows) for k in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    lines.append("score = killed / (mutants - equivalent)")
    for proof in proofs:
        lines += lesson_details(proof)
    gaps = sum(not proof.ok for proof in proofs)
    lines.append(
        "\nno gap: every mutant that breaks a stated rule loses points"
        if not gaps
        else f"\n{gaps} lesson(s) with a gap: a mutant that breaks a stated rule keeps full marks"
    )
    return "\n".join(lines) + "\n"


def lesson_details(proof: LessonProof) -> list[str]:
    lines: list[str] = []
    if proof.reference_problem is not None:
        problem = proof.reference_problem
        lines += [
            f"\n== {proof.lesson}: the reference breaks the rule checker ==",
            f"input: {problem.call}",
            f"rule: {problem.rule}",
            f"the reference gives: {problem.got}",
        ]
    for kind, title in ((GAP, "gaps"), (UNEXAMINED, "not examined")):
        shown = [r for r in proof.results if r.kind == kind]
        if shown:
            lines.append(f"\n== {proof.lesson}: {title} ==")
            lines += [line for result in shown for line in gap_lines(result)]
    for kind, title in ((ALLOWED, "allowed by the rules"), (EQUIVALENT, "equivalent")):
        shown = [r for r in proof.results if r.kind == kind]
        if shown:
            lines.append(f"\n== {proof.lesson}: {title} ==")
            lines += [survivor_line(result) for result in shown]
    return lines


def headline(result: MutantResult) -> str:
    mutant = result.mutant
    return f"{mutant.name} {mutant.operator}, line {mutant.line} ({result.score}, key {mutant.key})"


def gap_lines(result: MutantResult) -> list[str]:
    finding = result.finding
    assert finding is not None
    if result.kind == UNEXAMINED:
        return [headline(result), indent(result.mutant.diff, "    "), f"  {finding.rule}"]
    return [
        headline(result),
        indent(result.mutant.diff, "    "),
        f"  input: {finding.call}",
        f"  breaks: {finding.rule}",
        f"  the mutant gives:    {finding.got}",
        f"  the reference gives: {finding.reference}",
    ]


def changed_line(result: MutantResult) -> str:
    added = [line[1:].strip() for line in result.mutant.diff.splitlines() if line[:1] == "+"]
    return "; ".join(added) or "(lines removed)"


def survivor_line(result: MutantResult) -> str:
    finding = result.finding
    assert finding is not None
    said = f"{headline(result)}: {changed_line(result)}"
    if result.kind == ALLOWED:
        return f"{said}\n    {finding.call} gives {finding.got}, the reference {finding.reference}"
    why = result.why_equivalent or "not recorded yet: say why in solutions/equivalent_mutants.json"
    return f"{said}\n    {why}"
