"""`report.html`: the class at a glance, one self-contained page for the instructor.

For each lesson: a histogram of scores, the rules ordered by how many students
broke them, the kinds of problems, the slowest submissions. Then similar code
(with `--similarity`), the students with links to their feedback pages, and
the facts of the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chunklab.class_out.class_tally import BINS, ClassSummary, LessonFigures, StudentScore
from chunklab.class_out.html_page import esc, href, page, points, table
from chunklab.class_out.similarity import MOST_FINGERPRINTED_CHARS, Similarity, line_spans
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
    # Sections shown after the facts (ready HTML): the roster, a partial run.
    sections: tuple[str, ...] = ()


def percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def histogram_svg(counts: Sequence[int]) -> str:
    """Bars of the score histogram, each labelled with its count and range of percents."""
    width, height, top, bottom = 560, 170, 18, 34
    slot = width / len(counts)
    tallest = max(counts) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="histogram of scores">',
        f'<line x1="0" y1="{height - bottom}" x2="{width}" y2="{height - bottom}" '
        'stroke="#9aa3ad" stroke-width="1"/>',
    ]
    for index, count in enumerate(counts):
        low = index * 100 // BINS
        label = f"{low}–{low + 100 // BINS - 1}%" if index < BINS - 1 else f"{low}–100%"
        bar = (height - top - bottom) * count / tallest
        x = index * slot + 4
        y = height - bottom - bar
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot - 8:.1f}" height="{bar:.1f}" '
            f'fill="#2f6fd6" fill-opacity="0.8"><title>{count} at {label}</title></rect>'
        )
        middle = x + (slot - 8) / 2
        if count:
            parts.append(
                f'<text x="{middle:.1f}" y="{y - 4:.1f}" font-size="12" '
                f'text-anchor="middle" fill="#1d232b">{count}</text>'
            )
        parts.append(
            f'<text x="{middle:.1f}" y="{height - bottom + 16}" font-size="11" '
            f'text-anchor="middle" fill="#5b6570">{label}</text>'
        )
    parts.append(
        f'<text x="{width / 2:.0f}" y="{height - 2}" font-size="11" text-anchor="middle" '
        'fill="#5b6570">share of full marks</text></svg>'
    )
    return "".join(parts)


def feedback_link(student: str, names: Mapping[str, str]) -> str:
    if student not in names:
        return esc(student)
    return f'<a href="{href(f"feedback/{names[student]}.html")}">{esc(student)}</a>'


def rules_html(figures: LessonFigures) -> str:
    broken = [rule for rule in figures.rules if rule.broken]
    if not broken:
        return "<p>No rule was broken.</p>"
    rows = [
        [
            esc(rule.rule),
            esc("hidden" if rule.visibility == "hidden" else "public"),
            f"{rule.broken} of {rule.tested}",
            f'<span class="bar" style="width:{rule.rate * 60:.0f}px"></span> {percent(rule.rate)}',
            points(rule.points_lost),
            f"<code>{esc(clip_middle(rule.shortest_input, INPUT_SHOWN))}</code>"
            if rule.shortest_input
            else '<span class="muted">none shown</span>',
        ]
        for rule in broken
    ]
    headers = ["Rule", "Check", "Broken by", "Rate", "Points lost", "Shortest failing input"]
    return table(headers, rows, numeric=frozenset({2, 3, 4}), klass="rules")


def problems_html(figures: LessonFigures) -> str:
    if not figures.problems:
        return "<p>No errors, timeouts or warnings.</p>"
    rows = [
        [
            f'<span class="mono">{esc(problem.kind)}</span>',
            esc(problem.level),
            str(problem.submissions),
            f"<pre>{esc(clip_middle(problem.example, 300))}</pre>",
        ]
        for problem in figures.problems
    ]
    return table(["Kind", "Level", "Submissions", "Example"], rows, numeric=frozenset({2}))


def slowest_html(figures: LessonFigures, names: Mapping[str, str]) -> str:
    rows = [
        [feedback_link(t.student, names), esc(t.submission), f"{t.duration_s:.2f}"]
        for t in figures.slowest
    ]
    return table(["Student", "Submission", "Seconds"], rows, numeric=frozenset({2}))


def lesson_html(figures: LessonFigures, names: Mapping[str, str]) -> str:
    known = LESSONS.get(figures.lesson)
    title = known.title if known else "Unknown lesson"
    cards = (
        ("submissions", str(figures.submissions)),
        ("graded", str(figures.graded)),
        ("mean score", f"{points(figures.mean_score)} / {points(figures.max_score)}"),
        ("full marks", str(figures.full_marks)),
    )
    return "\n".join(
        [
            f'<h2 id="lesson-{esc(figures.lesson)}">{esc(title)} '
            f'<span class="muted mono">{esc(figures.lesson)}</span></h2>',
            '<div class="cards">'
            + "".join(f'<div class="card">{esc(k)}<b>{v}</b></div>' for k, v in cards)
            + "</div>",
            "<h3>Scores</h3>",
            histogram_svg(figures.histogram),
            "<h3>Rules, most often broken first</h3>",
            rules_html(figures),
            "<h3>Errors, timeouts and warnings</h3>",
            problems_html(figures),
            "<h3>Slowest submissions</h3>",
            slowest_html(figures, names),
        ]
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


def marked(source: str, regions: Sequence[tuple[int, int]]) -> str:
    """The source with the lines of its matching regions in `<mark>`, escaped, cut if long."""
    parts, at = [], 0
    for start, end in whole_lines(source, regions):
        if start >= CODE_SHOWN:
            break
        end = min(end, CODE_SHOWN)
        parts += [esc(source[at:start]), f"<mark>{esc(source[start:end])}</mark>"]
        at = end
    parts.append(esc(source[at:CODE_SHOWN]))
    if len(source) > CODE_SHOWN:
        parts.append("\n…")
    return "".join(parts)


def not_compared_html(similar: Similarity) -> str:
    if not similar.not_compared:
        return ""
    names = ", ".join(esc(code.student or code.submission) for code in similar.not_compared)
    return (
        f"<p>{len(similar.not_compared)} submission(s) hold more than "
        f"{MOST_FINGERPRINTED_CHARS:,} characters of code and were not compared: {names}.</p>"
    )


def similarity_html(similar: Similarity) -> str:
    pairs = similar.pairs
    skipped = not_compared_html(similar)
    if not pairs:
        return "<p>No pair of submissions shares most of its code.</p>" + skipped
    out = [skipped,
        f"<p>{similar.flagged} pair(s) share most of their code (names and comments ignored, "
        "the lesson's given code left out). Matching code is highlighted.</p>"
    ]
    if similar.flagged > len(pairs):
        out.append(
            f"<p>Only the {len(pairs)} most similar are kept: so many pairs usually mean the "
            "class shares a template the lesson did not give.</p>"
        )
    for pair in pairs[:PAIRS_SHOWN]:
        out.append(
            f"<h3>{esc(pair.first.student)} and {esc(pair.second.student)} "
            f'<span class="muted mono">{esc(pair.lesson)}</span> &middot; '
            f"{percent(pair.score)}</h3>"
        )
        sides = []
        for code, share, regions in (
            (pair.first, pair.first_share, pair.first_regions),
            (pair.second, pair.second_share, pair.second_regions),
        ):
            spans = line_spans(code.source, regions)
            lines = ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in spans)
            sides.append(
                f"<div><p><b>{esc(code.student)}</b> "
                f'<span class="muted">{esc(code.submission)}</span><br>'
                f"{percent(share)} of this code matches (lines {esc(lines)})</p>"
                f'<pre class="box">{marked(code.source, regions)}</pre></div>'
            )
        out.append('<div class="pair">' + "".join(sides) + "</div>")
    if len(pairs) > PAIRS_SHOWN:
        out.append(f"<p>{len(pairs) - PAIRS_SHOWN} more pair(s) in similarity.csv.</p>")
    return "\n".join(out)


def students_html(scores: Sequence[StudentScore], names: Mapping[str, str]) -> str:
    lessons = [lesson for lesson in LESSONS if any(s.lesson == lesson for s in scores)]
    lessons += sorted({s.lesson for s in scores} - set(lessons))
    by_student: dict[str, dict[str, list[StudentScore]]] = {}
    for score in scores:
        by_student.setdefault(score.student, {}).setdefault(score.lesson, []).append(score)
    rows = []
    for student in sorted(by_student, key=lambda s: (s.casefold(), s)):
        cells, total, full = [feedback_link(student, names)], 0.0, 0.0
        for lesson in lessons:
            entries = by_student[student].get(lesson, [])
            cells.append(
                "<br>".join(
                    f"{points(e.score)} / {points(e.max_score)}"
                    + (' <span class="status-error">error</span>' if e.status == "error" else "")
                    for e in entries
                )
                or '<span class="muted">none</span>'
            )
            total += sum(e.score for e in entries)
            full += sum(e.max_score for e in entries)
        cells.append(f"{points(total)} / {points(full)}")
        rows.append(cells)
    headers = ["Student", *lessons, "Total"]
    return table(headers, rows, numeric=frozenset(range(1, len(headers))))


def facts_html(facts: RunFacts, summary: ClassSummary) -> str:
    isolation = ", ".join(f"{name} ({count})" for name, count in summary.isolation) or "none"
    limits = ", ".join(f"--{name.replace('_', '-')} {value}" for name, value in facts.limits)
    items = (
        ("Graded", facts.date),
        ("Kit version", f"chunklab {facts.kit_version}"),
        ("Duration", f"{facts.duration_s:.1f} s"),
        ("Isolation", isolation),
        ("Limits", limits),
        ("Hidden feedback", facts.hidden_feedback),
    )
    return (
        '<dl class="facts">'
        + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
        + "</dl>"
    )


def class_report_html(
    summary: ClassSummary,
    facts: RunFacts,
    names: Mapping[str, str],
    similar: Similarity | None,
) -> str:
    """The whole page; `similar` is None when similar code was not looked for."""
    students = len({s.student for s in summary.scores})
    contents = " &middot; ".join(
        f'<a href="#lesson-{esc(f.lesson)}">{esc(f.lesson)}</a>' for f in summary.lessons
    )
    body = [
        "<h1>Class report</h1>",
        f'<p class="lede">{len(summary.scores)} submission(s) from {students} student(s). '
        f"{contents}</p>",
        facts_html(facts, summary),
        *facts.sections,
        *(lesson_html(figures, names) for figures in summary.lessons),
    ]
    if similar is not None:
        body += ['<h2 id="similar-code">Similar code</h2>', similarity_html(similar)]
    body += ['<h2 id="students">Students</h2>', students_html(summary.scores, names)]
    return page("Class report", "\n".join(body))
