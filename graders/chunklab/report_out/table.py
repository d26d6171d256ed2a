"""A readable table of results for a person at a terminal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunklab.sandbox.zygote import GAPS
from chunklab.scoring.report import GradeReport, Isolation
from chunklab.text import clip, clip_end, terminal_safe

# A submission's path in the table is cut in the middle beyond this, keeping its end.
SUBMISSION_COLUMN = 60


@dataclass(frozen=True)
class Outline:
    """A table row: what the table and the summary need of a report (or of a missing one).

    A class's full reports are written out as they come; only their outlines
    are kept, so grading a large class does not hold every report in memory.
    """

    submission: str
    lesson: str | None
    score: float
    max_score: float
    status: str  # a report's status, or "missing" for a roster's student with no submission
    note: str
    isolation: Isolation = ""
    isolation_gaps: tuple[str, ...] = ()


def outline(report: GradeReport) -> Outline:
    note = ""
    if report.errors:
        note = report.errors[0].message
    else:
        # A rule checked by several tests (public and hidden) is one rule broken.
        broken = list(dict.fromkeys(t.rule for t in report.tests if t.outcome != "passed"))
        if broken:
            note = f"{len(broken)} rule(s) broken, first: {broken[0]}"
    return Outline(
        submission=report.submission,
        lesson=report.lesson,
        score=report.score,
        max_score=report.max_score,
        status=report.status,
        note=clip_end(" ".join(note.split()), 70),
        isolation=report.isolation,
        isolation_gaps=report.isolation_gaps,
    )


def results_table(outlines: Sequence[Outline]) -> str:
    """The table a person reads; what a submission brings is shown escaped, never run."""
    rows = [("submission", "lesson", "score", "status", "note")]
    for each in outlines:
        rows.append(
            (
                end_kept(terminal_safe(each.submission)),
                terminal_safe(str(each.lesson or "?")),
                f"{each.score:g}/{each.max_score:g}",
                terminal_safe(each.status),
                terminal_safe(each.note),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
        + "  "
        + row[4]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n" + isolation_note(outlines)


def isolation_note(outlines: Sequence[Outline]) -> str:
    """Below the table, where the sandbox was weaker than the README's strongest promise."""
    modes = sorted({each.isolation for each in outlines} - {""})
    gaps = sorted({gap for each in outlines for gap in each.isolation_gaps})
    if modes in ([], ["namespaces"]) and not gaps:
        return ""
    lines = [f"sandbox: {', '.join(modes) or 'none'} isolation"]
    lines += [f"  not kept apart: {GAPS.get(gap, gap)}" for gap in gaps]
    return "\n".join(lines) + "\n"


def end_kept(submission: str, limit: int = SUBMISSION_COLUMN) -> str:
    """A submission's path cut in the middle, its end (the file's name) the longer part."""
    keep = limit - 3
    return clip(submission, limit, head=keep // 3, tail=keep - keep // 3)


def validation_table(verdicts: Sequence[Any]) -> str:
    """One table per lesson, then how sensitive each lesson's graders are."""
    lines: list[str] = []
    lessons = list(dict.fromkeys(v.expectation.lesson.id for v in verdicts))
    for lesson in lessons:
        rows = [v for v in verdicts if v.expectation.lesson.id == lesson]
        lines.append(f"\n== {lesson} ==")
        width = max(len(v.expectation.name) for v in rows)
        kind_width = max(len(v.expectation.kind) for v in rows)
        for verdict in rows:
            case = verdict.expectation
            mark = "ok  " if verdict.ok else "FAIL"
            lines.append(
                f"{mark} {case.kind.ljust(kind_width)}  {case.name.ljust(width)}  "
                f"{verdict.score.rjust(7)}  {case.expected}: {verdict.detail}".rstrip()
            )
    lines.append("\n== grader sensitivity ==")
    for lesson in lessons:
        rows = [v for v in verdicts if v.expectation.lesson.id == lesson]
        mistakes = [v for v in rows if v.expectation.kind == "mistake"]
        alternatives = [v for v in rows if v.expectation.kind.startswith("alternative")]
        lines.append(
            f"{lesson}: {sum(v.ok for v in mistakes)}/{len(mistakes)} known mistakes caught, "
            f"{sum(v.ok for v in alternatives)}/{len(alternatives)} valid alternatives "
            "(.py and notebook) at full marks"
        )
    failures = sum(not v.ok for v in verdicts)
    lines.append(f"\n{len(verdicts) - failures} checks passed, {failures} failed")
    return "\n".join(lines).lstrip("\n") + "\n"
