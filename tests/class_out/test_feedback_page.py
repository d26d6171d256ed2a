"""Feedback pages: the hidden-feedback policy, hostile text made inert, the chunk picture."""

from __future__ import annotations

from dataclasses import replace
from html.parser import HTMLParser

import pytest

from chunklab.class_out.feedback_page import (
    feedback_html,
    feedback_markdown,
    lesson_feedback,
    student_feedback,
)
from chunklab.class_out.feedback_picture import comparison_in, contiguous_starts, picture_of
from chunklab.class_out.html_page import inert
from chunklab.class_out.students import page_names, student_of
from chunklab.scoring.report import GradeReport, Problem, TestOutcome

HIDDEN_INPUT = "chunk('hidden input text', 4, 1)"
VISIBLE_FAILED = TestOutcome(
    "test_visible.py::test_a",
    "Stop as soon as a window reaches the end.",
    2.0,
    "failed",
    "visible",
    "Input: chunk('abcdefg', 3, 1)\n"
    "Expected: ['abc', 'cde', 'efg']\nGot: ['abc', 'cde', 'efg', 'g']",
)
REPORT = GradeReport(
    lesson="char_chunk",
    submission="class/bob_char_chunk.py",
    status="graded",
    max_score=6.0,
    tests=(
        VISIBLE_FAILED,
        TestOutcome(
            "test_hidden.py::test_b",
            "Every chunk but the last has size characters.",
            3.0,
            "failed",
            "hidden",
            f"Input: {HIDDEN_INPUT}\nExpected: ['hidd']\nGot: ['hid']",
        ),
        TestOutcome("test_visible.py::test_c", "Empty text gives [].", 1.0, "passed", "visible"),
    ),
    warnings=(Problem("output_cut", "printed output was cut at 64 KB"),),
    duration_s=0.1,
)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def tags_of(page: str) -> set[str]:
    parser = Tags()
    parser.feed(page)
    return set(parser.tags)


@pytest.mark.parametrize(
    ("policy", "input_shown", "rule_shown", "counted"),
    [("full", True, True, 0), ("rule", False, True, 0), ("none", False, False, 1)],
)
def test_hidden_checks_follow_the_policy(policy, input_shown, rule_shown, counted):
    item = lesson_feedback(REPORT, policy)
    assert item.hidden_broken == counted
    assert item.hidden_points_lost == (3.0 if counted else 0.0)
    for page in (feedback_html("bob", [item], ""), feedback_markdown("bob", [item], "")):
        assert ("hidden input text" in page) == input_shown
        assert ("Every chunk but the last has size characters" in page) == rule_shown
        # Public checks always show input, expected and got.
        assert "abcdefg" in page
        assert "printed output was cut at 64 KB" in page
        assert "1 / 6" in page


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="full, rule, none"):
        lesson_feedback(REPORT, "some")


def test_an_error_report_shows_its_error_and_no_tests():
    report = replace(
        REPORT, status="error", errors=(Problem("syntax_error", "line 3: invalid syntax"),)
    )
    item = lesson_feedback(report, "full")
    assert item.broken == () and item.tested == 0
    page = feedback_html("bob", [item], "")
    assert "syntax_error" in page and "line 3: invalid syntax" in page
    assert "Rules to fix" not in page


HOSTILE = "<script>alert(1)</script>\x1b[31m\u202e\ud800&\x00"


def test_hostile_text_is_inert_everywhere():
    feedback = f"Input: chunk({HOSTILE!r}, 3, 1)\nExpected: []\nGot: [{HOSTILE!r}]"
    report = replace(
        REPORT,
        student=HOSTILE,
        submission=HOSTILE,
        tests=(replace(VISIBLE_FAILED, rule=HOSTILE, feedback=feedback), *REPORT.tests[1:]),
        warnings=(Problem(HOSTILE, HOSTILE),),
    )
    items = student_feedback([report], "full")
    page = feedback_html(student_of(report), items, HOSTILE)
    page.encode("utf-8")  # no lone surrogate left
    assert "<script" not in page and tags_of(page) <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "div",
        "span", "b", "pre",
    }  # fmt: skip
    assert not any(c in page for c in "\x1b\x00\u202e")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\u241b[31m\ufffd\ufffd&amp;\u2400" in page
    markdown = feedback_markdown(student_of(report), items, HOSTILE)
    markdown.encode("utf-8")
    assert "\x1b" not in markdown
    # Outside fenced blocks (shown as text by every renderer) no tag survives.
    outside = markdown.split("```")[::2]
    assert not any("<" in part for part in outside)
    assert markdown.startswith("# Feedback for &lt;script&gt;alert(1)&lt;/script&gt;")


def test_markdown_fences_outlast_backticks_in_feedback():
    fenced = replace(VISIBLE_FAILED, feedback="Got: ````\n# not a heading")
    report = replace(REPORT, tests=(fenced, *REPORT.tests[1:]))
    page = feedback_markdown("bob", [lesson_feedback(report, "rule")], "")
    assert "`````text\nGot: ````\n# not a heading\n`````" in page


def test_inert_keeps_length_and_plain_text():
    assert inert("plain text\n\tstays") == "plain text\n\tstays"
    assert len(inert(HOSTILE)) == len(HOSTILE)


def test_comparison_is_read_from_feedback_without_running_it():
    found = comparison_in(VISIBLE_FAILED.feedback)
    assert found is not None
    assert (found.text, found.expected, found.got) == (
        "abcdefg",
        ("abc", "cde", "efg"),
        ("abc", "cde", "efg", "g"),
    )
    pipeline = (
        "Input: ChunkingPipeline(chunk_size=5, overlap=1).chunk_text('ab. cd')\n"
        "Expected: ['ab. ', ' cd']\nGot: ['ab. cd']"
    )
    assert comparison_in(pipeline).text == "ab. cd"
    for feedback in (
        "Input: chunk('abc ... def', 3, 1)\nExpected: ['abc']\nGot: ['a' ... 'b']",
        "Input: chunk(__import__('os').system('x'), 3, 1)\nExpected: ['a']\nGot: ['b']",
        "Input: chunk('abc', 3, 1)\nExpected: ValueError to be raised\nGot: it returned []",
        "Input: f({'body': 'x'})\nExpected: [{'a': 1}]\nGot: []",
        "Input: chunk('a', 1, 0)\nExpected: ['a']\nGot: " + "[" * 5000 + "]" * 5000,
        # Too large to draw: a text past the limit, or too many chunks.
        f"Input: chunk({'a' * 2001!r}, 1, 0)\nExpected: ['a']\nGot: ['a']",
        f"Input: chunk('a', 1, 0)\nExpected: ['a']\nGot: {['a'] * 201!r}",
    ):
        assert comparison_in(feedback) is None


def test_the_got_picture_follows_a_chunker_that_skips_its_overlap():
    text = "abcdefghijklmnopqrstuvwxyz" * 3
    got = [text[0:30], text[30:60], text[60:]]
    assert contiguous_starts(text, got) == [0, 30, 60]
    picture = picture_of(text, got)
    assert [c.start for c in picture.chunks] == [0, 30, 60]
    # Where the first place after the previous start is right, it is kept.
    repeated = "aaaaaa"
    assert [c.start for c in picture_of(repeated, ["aaa", "aaa", "aaa", "aaa"]).chunks] == [
        0,
        1,
        2,
        3,
    ]


def test_student_names_follow_the_submission_rule():
    def named(submission: str, student: str = "") -> str:
        return student_of(GradeReport(None, submission, "error", student=student))

    assert named("class/alice_char_chunk.py") == "alice"
    assert named("class/alice") == "alice"
    assert named("class/grace.ipynb") == "grace"
    assert named("class/word_chunk-dave.ipynb") == "dave"
    assert named("class/char_chunk.py") == "char_chunk"
    assert named("class/x_char_chunk.py", student="Xavier") == "Xavier"


def test_page_names_are_safe_and_never_shared():
    names = page_names(["alice", "Alice", "../etc/passwd", "bob", HOSTILE])
    assert len(set(n.lower() for n in names.values())) == 5
    assert names["bob"] == "bob"
    for name in names.values():
        assert name.replace("-", "").replace("_", "").isalnum() and not name.startswith(".")
    assert names["alice"].startswith("alice-") and names["Alice"].startswith("Alice-")


def test_a_name_chosen_to_be_another_students_page_name_never_takes_it():
    """`j_smith-b33a535a` is the page j.smith gets; a student naming a file so gets another."""
    victims = ["j.smith", "alice", "Alice", "alice\u200b"]
    theirs = page_names(victims)
    attackers = [name for name in theirs.values()]
    names = page_names(victims + attackers)
    assert len({name.lower() for name in names.values()}) == len(victims) + len(attackers)
    assert names["j.smith"] == theirs["j.smith"]
    for attacker in attackers:
        assert names[attacker].startswith(attacker + "-")
