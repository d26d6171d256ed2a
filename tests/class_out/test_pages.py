"""The pages' templates: a student's string is shown, never run; a missing value is an error."""

from __future__ import annotations

from dataclasses import replace

import jinja2
import pytest

from chunklab.class_out.class_report import RunFacts, class_report_html
from chunklab.class_out.class_tally import ClassTally
from chunklab.class_out.feedback_page import feedback_html, student_feedback
from chunklab.class_out.pages import environment, render
from chunklab.scoring.report import GradeReport, Problem, TestOutcome

# Template syntax and markup, as a student may name a file or word an error.
SYNTAX = "{{ 7*7 }}{{ 7*191 }}{% for x in y %}{# c #}<script>alert(1)</script>"
# What it shows as: itself, its markup escaped.
SHOWN = "{{ 7*7 }}{{ 7*191 }}{% for x in y %}{# c #}&lt;script&gt;alert(1)&lt;/script&gt;"


def hostile_report() -> GradeReport:
    failed = TestOutcome(
        "test_visible.py::test_a",
        SYNTAX,
        1.0,
        "failed",
        "visible",
        f"Input: chunk({SYNTAX!r}, 3, 1)\nExpected: [{SYNTAX!r}]\nGot: []",
    )
    return GradeReport(
        lesson="char_chunk",
        submission=f"class/{SYNTAX}_char_chunk.py",
        status="graded",
        max_score=1.0,
        tests=(failed,),
        warnings=(Problem(SYNTAX, SYNTAX),),
        student=SYNTAX,
    )


def assert_shown_as_itself(page: str, times: int) -> None:
    assert page.count(SHOWN) >= times
    assert "<script" not in page
    assert "1337" not in page  # 7*191, never worked out


def test_template_syntax_in_a_feedback_page_shows_as_itself():
    report = hostile_report()
    page = feedback_html(SYNTAX, student_feedback([report], "full"), SYNTAX)
    # Title, heading, run line, rule, submission, warning kind and message.
    assert_shown_as_itself(page, 7)
    # In the feedback and its chunk picture, quoted as the test wrote it.
    assert page.count(SHOWN.replace("{{", "&#x27;{{", 1)) >= 2


def test_template_syntax_in_the_class_report_shows_as_itself():
    tally = ClassTally()
    report = hostile_report()
    tally.add(replace(report, errors=(Problem(SYNTAX, SYNTAX),), status="error", tests=()))
    tally.add(report)
    facts = RunFacts(SYNTAX, SYNTAX, 1.0, ((SYNTAX, SYNTAX),), SYNTAX)
    page = class_report_html(tally.summary(), facts, {SYNTAX: "x-1"}, None)
    # The facts, the rule, the problems, the slowest and the students.
    assert_shown_as_itself(page, 8)
    assert '<a href="feedback/x-1.html">' + SHOWN + "</a>" in page


def test_a_value_a_template_needs_and_is_not_given_is_an_error():
    with pytest.raises(jinja2.UndefinedError, match="rows"):
        render("roster.html.j2")


def test_an_indented_line_of_a_template_continues_the_line_above():
    templates = environment().overlay(
        loader=jinja2.DictLoader(
            {
                "t.html.j2": "{# a comment\n   kept whole #}\n<ul>\n"
                "  {% for item in items %}\n    <li>{{ item }}</li>\n  {% endfor %}\n"
                "  </ul>\n<p>{{ items|length }}</p>\n",
                "bad.html.j2": "<p>\n  x</p>\n{% if %}\n",
            }
        )
    )
    shown = templates.get_template("t.html.j2").render(items=["a", "<b>"])
    assert shown == "<ul><li>a</li><li>&lt;b&gt;</li></ul>\n<p>2</p>\n"
    # An error still names the line of the template it is on.
    with pytest.raises(jinja2.TemplateSyntaxError) as error:
        templates.get_template("bad.html.j2")
    assert error.value.lineno == 3
