"""`report.html`: the class at a glance, one self-contained page for the instructor.

For each lesson: a histogram of scores, the rules ordered by how many students
broke them, the kinds of problems, the slowest submissions. Then similar code
(with `--similarity`), the students with links to their feedback pages, and
the facts of the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from chunklab.class_out.class_tally import (
    BINS,
    ClassSummary,
    LessonFigures,
    ProblemFigures,
    RuleFigures,
    StudentScore,
)
from chunklab.class_out.pages import render
from chunklab.class_out.similarity import (
    MOST_FINGERPRINTED_CHARS,
    CodeText,
    Similarity,
    SimilarPair,
    line_spans,
)
from chunklab.lessons import LESSONS
from chunklab.text import clip_middle

# A shortest failing input longer than this is cut in the middle.
INPUT_SHOWN = 160
# The pairs drawn side by side; similarity.csv lists them all.
PAIRS_SHOWN = 40
# Characters of each side's code shown in a pair.
CODE_SHOWN = 12_000


@dataclass(frozen=True)
class RunFacts:
    """What an instructor needs to know about how the class was graded."""

    date: str
    kit_version: str
    duration_s: float
    limits: tuple[tuple[str, str], ...]
    hidden_feedback: str
    # Sections shown after the facts (ready HTML, as the grading run made them): the
    # roster, a partial run.
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bar:
    """One bar of the histogram, where it is drawn and what it counts."""

    x: float
    y: float
    width: float
    height: float
    middle: float
    count: int
    label: str


@dataclass(frozen=True)
class Histogram:
    width: int
    height: int
    axis_y: int
    label_y: int
    caption_y: int
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class RuleRow:
    rule: RuleFigures
    # The shortest failing input, cut in the middle when long; "" when none is known.
    shortest_input: str


@dataclass(frozen=True)
class ProblemRow:
    problem: ProblemFigures
    example: str


@dataclass(frozen=True)
class LessonView:
    figures: LessonFigures
    title: str
    histogram: Histogram
    broken: tuple[RuleRow, ...]
    problems: tuple[ProblemRow, ...]


@dataclass(frozen=True)
class Piece:
    """A stretch of a submission's code, highlighted when it matches the other side."""

    text: str
    marked: bool


@dataclass(frozen=True)
class CodeSide:
    code: CodeText
    share: float
    lines: str
    pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class PairView:
    pair: SimilarPair
    first: CodeSide
    second: CodeSide


@dataclass(frozen=True)
class SimilarityView:
    similar: Similarity
    pairs: tuple[PairView, ...]
    # Pairs kept but not drawn (similarity.csv lists them).
    more: int
    most_chars: str = f"{MOST_FINGERPRINTED_CHARS:,}"


@dataclass(frozen=True)
class StudentRow:
    student: str
    # Per lesson (in the table's order), the student's scores in it.
    lessons: tuple[tuple[StudentScore, ...], ...]
    total: float
    full: float


@dataclass(frozen=True)
class StudentsTable:
    headers: tuple[str, ...]
    numeric: tuple[int, ...]
    rows: tuple[StudentRow, ...]


def histogram(counts: Sequence[int]) -> Histogram:
    """Bars of the score histogram, each labelled with its count and range of percents."""
    width, height, top, bottom = 560, 170, 18, 34
    slot = width / len(counts)
    tallest = max(counts) or 1
    bars = []
    for index, count in enumerate(counts):
        low = index * 100 // BINS
        label = f"{low}–{low + 100 // BINS - 1}%" if index < BINS - 1 else f"{low}–100%"
        bar = (height - top - bottom) * count / tallest
        x = index * slot + 4
        bars.append(Bar(x, height - bottom - bar, slot - 8, bar, x + (slot - 8) / 2, count, label))
    return Histogram(width, height, height - bottom, height - bottom + 16, height - 2, tuple(bars))


def lesson_view(figures: LessonFigures) -> LessonView:
    known = LESSONS.get(figures.lesson)
    return LessonView(
        figures=figures,
        title=known.title if known else "Unknown lesson",
        histogram=histogram(figures.histogram),
        broken=tuple(
            RuleRow(rule, clip_middle(rule.shortest_input, INPUT_SHOWN))
            for rule in figures.rules
            if rule.broken
        ),
        problems=tuple(
            ProblemRow(problem, clip_middle(problem.example, 300)) for problem in figures.problems
        ),
    )


def whole_lines(source: str, regions: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The regions widened to the lines they touch (matches start mid-token), merged."""
    found: list[tuple[int, int]] = []
    for start, end in regions:
        start = source.rfind("\n", 0, start) + 1
        end = source.find("\n", max(start, end - 1))
        end = len(source) if end < 0 else end
        if found and start <= found[-1][1] + 1:
            found[-1] = (found[-1][0], max(found[-1][1], end))
        else:
            found.append((start, end))
    return found


def marked(source: str, regions: Sequence[tuple[int, int]]) -> tuple[Piece, ...]:
    """The source in pieces, the lines of its matching regions marked, cut if long."""
    pieces, at = [], 0
    for start, end in whole_lines(source, regions):
        if start >= CODE_SHOWN:
            break
        end = min(end, CODE_SHOWN)
        pieces += [Piece(source[at:start], False), Piece(source[start:end], True)]
        at = end
    pieces.append(Piece(source[at:CODE_SHOWN], False))
    if len(source) > CODE_SHOWN:
        pieces.append(Piece("\n…", False))
    return tuple(pieces)


def code_side(code: CodeText, share: float, regions: tuple[tuple[int, int], ...]) -> CodeSide:
    spans = line_spans(code.source, regions)
    lines = ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in spans)
    return CodeSide(code, share, lines, marked(code.source, regions))


def similarity_view(similar: Similarity) -> SimilarityView:
    pairs = tuple(
        PairView(
            pair,
            code_side(pair.first, pair.first_share, pair.first_regions),
            code_side(pair.second, pair.second_share, pair.second_regions),
        )
        for pair in similar.pairs[:PAIRS_SHOWN]
    )
    return SimilarityView(similar, pairs, max(0, len(similar.pairs) - PAIRS_SHOWN))


def students_table(scores: Sequence[StudentScore]) -> StudentsTable:
    lessons = [lesson for lesson in LESSONS if any(s.lesson == lesson for s in scores)]
    lessons += sorted({s.lesson for s in scores} - set(lessons))
    by_student: dict[str, dict[str, list[StudentScore]]] = {}
    for score in scores:
        by_student.setdefault(score.student, {}).setdefault(score.lesson, []).append(score)
    rows = []
    for student in sorted(by_student, key=lambda s: (s.casefold(), s)):
        entries = [tuple(by_student[student].get(lesson, [])) for lesson in lessons]
        total = sum(e.score for each in entries for e in each)
        full = sum(e.max_score for each in entries for e in each)
        rows.append(StudentRow(student, tuple(entries), total, full))
    headers = ("Student", *lessons, "Total")
    return StudentsTable(headers, tuple(range(1, len(headers))), tuple(rows))


def facts_shown(facts: RunFacts, summary: ClassSummary) -> tuple[tuple[str, str], ...]:
    isolation = ", ".join(f"{name} ({count})" for name, count in summary.isolation) or "none"
    limits = ", ".join(f"--{name.replace('_', '-')} {value}" for name, value in facts.limits)
    return (
        ("Graded", facts.date),
        ("Kit version", f"chunklab {facts.kit_version}"),
        ("Duration", f"{facts.duration_s:.1f} s"),
        ("Isolation", isolation),
        ("Limits", limits),
        ("Hidden feedback", facts.hidden_feedback),
    )


def class_report_html(
    summary: ClassSummary,
    facts: RunFacts,
    names: Mapping[str, str],
    similar: Similarity | None,
) -> str:
    """The whole page; `similar` is None when similar code was not looked for."""
    return render(
        "report.html.j2",
        summary=summary,
        students=len({s.student for s in summary.scores}),
        facts=facts_shown(facts, summary),
        sections=[Markup(section) for section in facts.sections],
        lessons=[lesson_view(figures) for figures in summary.lessons],
        similarity=None if similar is None else similarity_view(similar),
        scores=students_table(summary.scores),
        names=names,
    )
