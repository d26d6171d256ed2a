"""`chunklab validate`: the graders catch every known mistake and pass every valid answer."""

from __future__ import annotations

import re
from pathlib import Path

from chunklab.authoring.validation import FULL, LOSES_POINTS, ZERO, Expectation, judge
from chunklab.lessons import get_lesson
from chunklab.report_out.table import validation_table
from chunklab.scoring.report import GradeReport, TestOutcome
from tests.conftest import LESSON_IDS

KIT_ROOT = Path(__file__).resolve().parents[2]


def test_validate_passes_on_the_kit(validate_run):
    result = validate_run.result
    assert result.exit_code == 0, result.stdout[-3000:]
    sensitivity = re.findall(
        r"^(\w+): (\d+)/(\d+) known mistakes caught, (\d+)/(\d+) valid alternatives",
        result.stdout,
        flags=re.MULTILINE,
    )
    assert [row[0] for row in sensitivity] == list(LESSON_IDS)
    for lesson, caught, mistakes, passing, alternatives in sensitivity:
        on_disk = len(list((KIT_ROOT / "solutions" / "mistakes" / lesson).glob("*.py")))
        assert int(caught) == int(mistakes) == on_disk
        assert int(passing) == int(alternatives) > 0
    assert re.search(r"^\d+ checks passed, 0 failed$", result.stdout, flags=re.MULTILINE)
    weak = re.findall(
        r"^(\w+): highest non-chunker (\d+)/(\d+) \(\d+%\), highest public-only (\d+)/(\d+)",
        result.stdout,
        flags=re.MULTILINE,
    )
    assert [row[0] for row in weak] == list(LESSON_IDS)
    for _, non_chunker, most, public_only, _ in weak:
        assert int(non_chunker) <= 0.4 * int(most) and int(public_only) <= 0.4 * int(most)
    assert result.stdout.count("runs top to bottom without an error") == 3


def report(score: float, outcomes: list[str], status: str = "graded") -> GradeReport:
    tests = tuple(
        TestOutcome(f"t{i}", f"rule {i}", 1.0, outcome, "hidden")
        for i, outcome in enumerate(outcomes)
    )
    made = GradeReport("char_chunk", "x.py", status, tests, max_score=float(len(outcomes)))
    assert made.score == score
    return made


def case(expected: str, kind: str = "mistake") -> Expectation:
    return Expectation(get_lesson("char_chunk"), kind, Path("x.py"), expected, "a slip")


def test_a_mistake_with_full_marks_is_a_miss():
    verdict = judge(case(LOSES_POINTS), report(2.0, ["passed", "passed"]))
    assert not verdict.ok
    assert "NOT CAUGHT" in verdict.detail


def test_a_caught_mistake_names_the_rules_that_caught_it():
    verdict = judge(case(LOSES_POINTS), report(1.0, ["passed", "failed"]))
    assert verdict.ok
    assert verdict.detail == "a slip | caught by: rule 1"


def test_a_stub_must_fail_every_test_cleanly():
    assert judge(case(ZERO, "stub"), report(0.0, ["failed", "failed"])).ok
    crashed = judge(case(ZERO, "stub"), report(0.0, ["failed", "error"]))
    assert not crashed.ok
    assert crashed.detail == "1 test(s) did not fail cleanly"


def test_an_alternative_below_full_marks_is_a_miss():
    verdict = judge(case(FULL, "alternative"), report(1.0, ["passed", "failed"]))
    assert not verdict.ok
    assert verdict.detail == "failed: rule 1"
    assert validation_table([verdict]).splitlines()[-1] == "0 checks passed, 1 failed"
