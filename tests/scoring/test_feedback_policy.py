"""`--hidden-feedback full|rule|none`: what hidden tests show in every output; visible keep all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunklab.scoring.feedback_policy import kept_under_rule, with_hidden_feedback
from chunklab.scoring.report import GradeReport, Outcome, TestOutcome, Visibility
from tests.conftest import KIT_ROOT

FEEDBACK = "Input: chunk('abc', 2, 0)\nExpected: ['ab', 'c']\nGot: ['ab']"


def outcome(name: str, visibility: Visibility, outcome: Outcome) -> TestOutcome:
    feedback = "" if outcome == "passed" else FEEDBACK
    return TestOutcome(name, f"the rule of {name}", 1.0, outcome, visibility, feedback)


REPORT = GradeReport(
    lesson="char_chunk",
    submission="alice_char_chunk.py",
    status="graded",
    max_score=5.0,
    tests=(
        outcome("v1", "visible", "failed"),
        outcome("h1", "hidden", "passed"),
        outcome("h2", "hidden", "timeout"),
        outcome("v2", "visible", "passed"),
        outcome("h3", "hidden", "failed"),
    ),
)


def test_full_keeps_everything() -> None:
    assert with_hidden_feedback(REPORT, "full") == REPORT


def test_rule_keeps_the_rule_and_drops_input_expected_and_got_of_hidden_tests() -> None:
    shown = with_hidden_feedback(REPORT, "rule")
    assert [t.feedback for t in shown.tests] == [FEEDBACK, "", "", "", ""]
    assert [t.rule for t in shown.tests] == [t.rule for t in REPORT.tests]
    assert [t.outcome for t in shown.tests] == [t.outcome for t in REPORT.tests]
    assert shown.score == REPORT.score == 2.0


def test_none_shows_only_the_points_of_hidden_tests() -> None:
    shown = with_hidden_feedback(REPORT, "none")
    hidden = [t for t in shown.tests if t.visibility == "hidden"]
    assert [(t.name, t.rule, t.outcome, t.feedback) for t in hidden] == [
        ("hidden check 1", "a hidden check", "passed", ""),
        ("hidden check 2", "a hidden check", "failed", ""),
        ("hidden check 3", "a hidden check", "failed", ""),
    ]
    assert [(t.score, t.max_score) for t in hidden] == [(1.0, 1.0), (0.0, 1.0), (0.0, 1.0)]
    assert shown.tests[0] == REPORT.tests[0] and shown.tests[3] == REPORT.tests[3]


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="full, rule, none"):
        with_hidden_feedback(REPORT, "some")


MISTAKE = KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "no_early_stop.py"


def hidden_failures(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in report["tests"] if t["visibility"] == "hidden" and t["outcome"] != "passed"]


@pytest.mark.parametrize("policy", [None, "rule", "none", "full"])
def test_every_output_follows_the_policy(
    chunklab, tmp_path: Path, validate_report, policy: str | None
) -> None:
    chosen = ("--hidden-feedback", policy) if policy else ()
    out = tmp_path / "out"
    result = chunklab("grade", "--lesson", "char_chunk", *chosen, "--out", out, MISTAKE)
    [line] = result.reports
    validate_report(line)
    [written] = [json.loads(p.read_text()) for p in (out / "submissions").glob("*.json")]
    assert written == line
    failures = hidden_failures(line)
    assert failures
    visible = [
        t for t in line["tests"] if t["visibility"] == "visible" and t["outcome"] != "passed"
    ]
    assert visible and all("Input:" in t["feedback"] for t in visible)
    if policy == "full":
        assert all("Input:" in t["feedback"] for t in failures)
    elif policy == "none":
        assert all(t["feedback"] == "" for t in failures)
    else:
        # Only an input to try, a public or made-up one, never the hidden input.
        assert all(t["feedback"] in ("", kept_under_rule(t["feedback"])) for t in failures)
        assert any(t["feedback"].startswith("Try: ") for t in failures)
    if policy == "none":
        assert {t["rule"] for t in failures} == {"a hidden check"}
    gradescope = chunklab(
        "grade", "--lesson", "char_chunk", *chosen, "--format", "gradescope", MISTAKE
    ).reports[0]
    outputs = [t["output"] for t in gradescope["tests"] if t["visibility"] == "after_published"]
    assert any("Input:" in text for text in outputs) == (policy == "full")
