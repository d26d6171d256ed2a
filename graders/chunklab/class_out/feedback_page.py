"""A student's feedback page (`feedback/<student>.html`, or `.md`), for the instructor to send.

It shows each lesson's score, each broken rule with the feedback the run may
show, the chunk picture of a failed chunking, and the warnings. Hidden checks
follow the run's hidden-feedback policy:

- `full`: hidden checks are shown like public ones, input, expected and got;
- `rule`: a broken hidden check shows only its rule, never its input;
- `none`: broken hidden checks are only counted, with the points they cost.

Nothing here reads a test's source or the reference solution: the page is
made from the report alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chunklab.class_out.feedback_picture import comparison_in, comparison_pictures
from chunklab.class_out.html_page import inert, points
from chunklab.class_out.pages import render
from chunklab.lessons import LESSONS
from chunklab.scoring.feedback_policy import CHOICES as HIDDEN_FEEDBACK
from chunklab.scoring.feedback_policy import hidden_test_shown
from chunklab.scoring.report import GradeReport, Status
from chunklab.student.showing import ChunkPicture


@dataclass(frozen=True)
class BrokenCheck:
    """A test a submission did not pass, as much of it as the policy lets the student see."""

    rule: str
    visibility: str
    outcome: str
    points_lost: float
    # The test's feedback (input, expected, got), or None when it may not be shown.
    feedback: str | None
    # Under the `rule` policy: an input of the kit's own that breaks the same rule ("" if
    # none was found), offered in place of the hidden input.
    to_try: str = ""


@dataclass(frozen=True)
class LessonFeedback:
    lesson: str
    title: str
    submission: str
    status: Status
    score: float
    max_score: float
    passed: int
    tested: int
    errors: tuple[tuple[str, str], ...]
    warnings: tuple[tuple[str, str], ...]
    broken: tuple[BrokenCheck, ...]
    # Broken hidden checks that are only counted (policy `none`), and what they cost.
    hidden_broken: int
    hidden_points_lost: float


def lesson_feedback(report: GradeReport, policy: str) -> LessonFeedback:
    """What a student may see of one report under the hidden-feedback policy."""
    if policy not in HIDDEN_FEEDBACK:
        raise ValueError(f"hidden-feedback policy {policy!r} is not one of full, rule, none")
    tests = report.tests if report.status == "graded" else ()
    broken: list[BrokenCheck] = []
    hidden_broken, hidden_lost = 0, 0.0
    for test in tests:
        if test.outcome == "passed":
            continue
        lost = test.max_score - test.score
        hidden = test.visibility != "visible"
        if hidden and policy == "none":
            hidden_broken += 1
            hidden_lost += lost
            continue
        # The policy module decides what of a hidden check is shown (under `rule`, at most
        # an input to try); the page only lays it out.
        shown: str | None = test.feedback
        to_try = ""
        if hidden and policy != "full":
            shown, to_try = None, hidden_test_shown(test, 0, policy).feedback
        broken.append(
            BrokenCheck(
                test.rule, "hidden" if hidden else "visible", test.outcome, lost, shown, to_try
            )
        )
    lesson = report.lesson or ""
    known = LESSONS.get(lesson)
    return LessonFeedback(
        lesson=lesson or "unknown lesson",
        title=known.title if known else "Unknown lesson",
        submission=shown_to_student(report.submission),
        status=report.status,
        score=report.score,
        max_score=report.max_score,
        passed=sum(1 for t in tests if t.outcome == "passed"),
        tested=len(tests),
        errors=tuple((p.kind, p.message) for p in report.errors),
        warnings=tuple((p.kind, p.message) for p in report.warnings),
        broken=tuple(broken),
        hidden_broken=hidden_broken,
        hidden_points_lost=round(hidden_lost, 6),
    )


def lesson_order(report: GradeReport) -> int:
    return list(LESSONS).index(report.lesson) if report.lesson in LESSONS else 99


def student_feedback(reports: Sequence[GradeReport], policy: str) -> list[LessonFeedback]:
    ordered = sorted(reports, key=lambda r: (lesson_order(r), r.submission))
    return [lesson_feedback(report, policy) for report in ordered]


OUTCOME_WORDS = {"failed": "", "error": " (your code raised an error)", "timeout": " (timed out)"}


def check_label(check: BrokenCheck) -> str:
    kind = "hidden check" if check.visibility == "hidden" else "public check"
    return (
        f"{kind}, {points(check.points_lost)} point(s) lost{OUTCOME_WORDS.get(check.outcome, '')}"
    )


# --- HTML -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShownCheck:
    """A broken check as its page shows it: its label, and the chunk picture when drawn."""

    check: BrokenCheck
    label: str
    pictures: tuple[tuple[str, ChunkPicture], ...]


@dataclass(frozen=True)
class ShownLesson:
    item: LessonFeedback
    score_class: str
    checks: tuple[ShownCheck, ...]


def score_class(score: float, max_score: float) -> str:
    if max_score and score == max_score:
        return "score-full"
    return "score-zero" if score == 0 else ""


def shown_check(check: BrokenCheck) -> ShownCheck:
    comparison = comparison_in(check.feedback) if check.feedback else None
    pictures = () if comparison is None else comparison_pictures(comparison)
    return ShownCheck(check, check_label(check), pictures)


def shown_lesson(item: LessonFeedback) -> ShownLesson:
    return ShownLesson(
        item, score_class(item.score, item.max_score), tuple(map(shown_check, item.broken))
    )


def feedback_html(student: str, lessons: Sequence[LessonFeedback], run_line: str) -> str:
    return render(
        "feedback.html.j2",
        student=student,
        run_line=run_line,
        lessons=[shown_lesson(item) for item in lessons],
    )


# --- Markdown -------------------------------------------------------------------------------


def md_text(text: object) -> str:
    """Inline Markdown: inert, HTML-escaped (a viewer may render HTML), punctuation escaped."""
    value = inert(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # Only what marks up text in the middle of a line (every use here is mid-line).
    value = re.sub(r"([\\`*_\[\]|~])", r"\\\1", value)
    return " ".join(value.split())


def md_block(text: str) -> str:
    """A fenced block longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{inert(text)}\n{fence}"


def feedback_markdown(student: str, lessons: Sequence[LessonFeedback], run_line: str) -> str:
    out = [f"# Feedback for {md_text(student)}", "", md_text(run_line), ""]
    for item in lessons:
        out += [f"## {md_text(item.title)} ({md_text(item.lesson)})", ""]
        line = f"Score: **{points(item.score)} / {points(item.max_score)}**"
        if item.tested:
            line += f", {item.passed} of {item.tested} checks passed"
        out += [line, ""]
        for kind, message in item.errors:
            out += [f"**{md_text(kind)}**: nothing could be checked.", "", md_block(message), ""]
        for kind, message in item.warnings:
            out += [f"Warning, **{md_text(kind)}**:", "", md_block(message), ""]
        for check in item.broken:
            out += [f"- **{md_text(check.rule)}** ({md_text(check_label(check))})", ""]
            if check.feedback is None:
                out += ["  The input of this hidden check is not shown.", ""]
                if check.to_try:
                    out += ["  An input that breaks the same rule:", "", md_block(check.to_try), ""]
            elif check.feedback:
                out += [md_block(check.feedback), ""]
        if item.hidden_broken:
            out += [
                f"- **{item.hidden_broken} hidden check(s) failed** "
                f"({points(item.hidden_points_lost)} point(s) lost)",
                "",
            ]
        if item.status == "graded" and not item.broken and not item.hidden_broken:
            out += ["Every check passed.", ""]
    return "\n".join(out).rstrip() + "\n"


def shown_to_student(submission: str) -> str:
    """What the page names: a download's file by its name in the download ("x.zip: a.py"),
    any other by its own name; where it sits on the grading machine is not the student's."""
    if ": " in submission:
        return submission
    return submission.replace("\\", "/").rsplit("/", 1)[-1]
