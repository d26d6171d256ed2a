"""The class report's figures, counted one report at a time, and its page with hostile text."""

from __future__ import annotations

import html
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from chunklab.class_out.class_outputs import ClassOptions, ClassOutputs
from chunklab.class_out.class_report import RunFacts, class_report_html
from chunklab.class_out.class_tally import SLOWEST_SHOWN, ClassTally, histogram_bin
from chunklab.kit import Kit
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport, Problem, TestOutcome
from tests.conftest import KIT_ROOT


def report(who: str, score: float, *, duration: float = 0.1, **changes: Any) -> GradeReport:
    """A report of `score` out of 4: 3 for the hidden sizes rule, 1 for stopping at the end."""
    sizes_broken = f"Input: chunk('{who} text', 4, 1)\nGot: []"
    tests = (
        TestOutcome(
            "test_hidden.py::test_sizes",
            "Every chunk but the last has size characters.",
            3.0,
            "passed" if score >= 3 else "failed",
            "hidden",
            "" if score >= 3 else sizes_broken,
        ),
        TestOutcome(
            "test_visible.py::test_stop",
            "Stop at the end.",
            1.0,
            "passed" if score in (1, 4) else "timeout",
            "visible",
        ),
    )
    made = GradeReport(
        lesson="char_chunk",
        submission=f"class/{who}_char_chunk.py",
        status="graded",
        max_score=4.0,
        tests=tests,
        duration_s=duration,
        isolation="namespaces",
    )
    return replace(made, **changes)


def test_tally_counts_rules_problems_histogram_and_slowest():
    tally = ClassTally()
    reports = [
        report("ann", 4.0, duration=0.5),
        report("ben", 3.0, duration=2.0),
        report("cy", 1.0, duration=0.2),
        report("dee", 0.0, duration=9.0),
        report(
            "eve",
            0.0,
            status="error",
            tests=(),
            errors=(Problem("syntax_error", "line 1"),),
        ),
    ] + [report(f"s{n}", 4.0, duration=0.01 * n) for n in range(5)]
    for each in reports:
        tally.add(each)
    (lesson,) = tally.summary().lessons
    assert (lesson.submissions, lesson.graded, lesson.full_marks) == (10, 9, 6)
    assert lesson.mean_score == round(sum(r.score for r in reports) / 10, 3)
    assert lesson.histogram == (2, 0, 1, 0, 0, 0, 0, 1, 0, 6)
    sizes, stop = lesson.rules
    # Broken by two graded reports out of nine; the shortest input of the two.
    assert (sizes.broken, sizes.tested, sizes.points_lost) == (2, 9, 6.0)
    assert sizes.shortest_input == "chunk('cy text', 4, 1)"
    assert (stop.broken, stop.tested, stop.points_lost, stop.rate) == (2, 9, 2.0, 2 / 9)
    assert {(p.kind, p.level, p.submissions) for p in lesson.problems} == {
        ("syntax_error", "error", 1),
        ("timeout in a test", "test", 2),
    }
    assert [t.student for t in lesson.slowest] == ["dee", "ben", "ann", "cy", "eve"]
    assert len(lesson.slowest) == SLOWEST_SHOWN


def test_histogram_bins_are_tenths_with_full_marks_in_the_last():
    assert [histogram_bin(s, 25) for s in (0, 2.4, 2.5, 12.5, 24.9, 25)] == [0, 0, 1, 5, 9, 9]
    assert histogram_bin(0, 0) == 0


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)


HOSTILE = '"><script>alert(1)</script><img src=x onerror=y>\x1b[2J\u202e\ud800'


def test_hostile_names_and_inputs_stay_text_in_the_report():
    tally = ClassTally()
    evil = report("x", 1.0, student=HOSTILE, submission=HOSTILE)
    broken = replace(evil.tests[0], feedback=f"Input: {HOSTILE}")
    evil = replace(evil, tests=(broken, *evil.tests[1:]), warnings=(Problem(HOSTILE, HOSTILE),))
    tally.add(evil)
    facts = RunFacts("2026-01-01", "0.1.0", 1.0, (("memory_mb", "512"),), "rule")
    page = class_report_html(tally.summary(), facts, {HOSTILE: "x-1234"}, None)
    page.encode("utf-8")
    parser = Tags()
    parser.feed(page)
    assert parser.tags == {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "a", "dl", "dt",
        "dd", "div", "b", "svg", "line", "rect", "text", "table", "thead", "tbody", "tr",
        "th", "td", "span", "code", "pre",
    }  # fmt: skip
    assert "<script" not in page and "\x1b" not in page and "\u202e" not in page
    assert 'href="feedback/x-1234.html"' in page


def test_feedback_pages_follow_the_policy_the_run_was_given(tmp_path: Path):
    hidden_input = html.escape("chunk('ben text', 4, 1)")
    for policy, shown in (("full", True), ("rule", False), ("none", False)):
        out = tmp_path / policy
        outputs = ClassOutputs(out, ClassOptions(hidden_feedback=policy), Kit(KIT_ROOT), Limits())
        for each in (report("ann", 4.0), report("ben", 1.0)):
            outputs.add(each)
        outputs.finish()
        page = (out / "feedback" / "ben.html").read_text(encoding="utf-8")
        assert (hidden_input in page) == shown
        assert ("Every chunk but the last has size characters." in page) == (policy != "none")
        assert sorted(p.name for p in (out / "feedback").iterdir()) == ["ann.html", "ben.html"]
        report_page = (out / "report.html").read_text(encoding="utf-8")
        # The instructor's report shows the shortest failing input whatever the policy.
        assert hidden_input in report_page
        assert f"<dd>{policy}</dd>" in report_page


def test_matching_code_is_marked_by_whole_lines():
    from chunklab.class_out.class_report import Piece, marked

    source = "import os\nx = 1\ny = <2>\nz = 3\n"
    # A match from inside line 2 to inside line 3, and one inside line 4 touching it.
    assert marked(source, [(12, 18), (25, 27)]) == (
        Piece("import os\n", False),
        Piece("x = 1\ny = <2>\nz = 3", True),
        Piece("\n", False),
    )
    assert marked(source, []) == (Piece(source, False),)
