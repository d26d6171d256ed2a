"""The self-check: in a namespace (a notebook's kernel) and as `chunklab check FILE`."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chunklab.authoring.submission_notebook import write_submission_notebook
from chunklab.contract import CallTimedOut
from chunklab.report_out.check_text import all_passed, check_text
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport, Problem, TestOutcome
from chunklab.student.selfcheck import check_namespace, self_check
from chunklab.suite_run.in_process import within
from tests.conftest import KIT_ROOT, LESSON_IDS


def namespace_of(path: Path) -> dict[str, Any]:
    """What a kernel would hold after running the file as a cell."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def outcome(
    name: str, rule: str, passed: bool, feedback: str = "", points: float = 1.0
) -> TestOutcome:
    return TestOutcome(
        name, rule, points, "passed" if passed else "failed", "visible", "" if passed else feedback
    )


# --- the text a student reads ----------------------------------------------------------------


def test_text_shows_points_and_each_broken_rule_with_its_feedback() -> None:
    report = GradeReport(
        "char_chunk",
        "x.py",
        "graded",
        tests=(
            outcome(
                "test_empty",
                "Empty text gives [].",
                False,
                "Input: chunk('', 5, 2)\nExpected: []\nGot: ['']",
            ),
            outcome("test_window", "Windows move by size - overlap.", True, points=2),
        ),
        max_score=3,
    )
    text = check_text(report)
    assert text.splitlines()[0] == "char_chunk self-check: 2 of 3 points (public checks only)"
    assert "Broken rule: Empty text gives [].\n  Input: chunk('', 5, 2)\n  Expected: []" in text
    assert "Got: ['']" in text
    assert "Windows move" not in text
    assert "1 of 2 public checks pass." in text
    assert not all_passed(report)


def test_text_groups_failures_of_one_rule() -> None:
    rule = "Stop at the end."
    report = GradeReport(
        "char_chunk",
        "x.py",
        "graded",
        tests=(
            outcome("a", rule, False, "Input: first"),
            outcome("b", rule, False, "Input: second"),
        ),
        max_score=2,
    )
    text = check_text(report)
    assert text.count("Broken rule: Stop at the end.") == 1
    assert "Input: first" in text and "Input: second" not in text
    assert "1 more failing check(s)" in text


def test_text_of_an_unwritten_stub_is_one_line_not_a_wall() -> None:
    feedback = "Input: chunk('a', 1, 0)\nIt raised NotImplementedError: write it"
    report = GradeReport(
        "char_chunk",
        "x.py",
        "graded",
        tests=tuple(outcome(f"t{i}", f"rule {i}", False, feedback) for i in range(5)),
        max_score=5,
    )
    text = check_text(report)
    assert "still raises NotImplementedError" in text
    assert "Broken rule" not in text


def test_text_of_a_full_pass_says_so_and_mentions_hidden_checks() -> None:
    report = GradeReport(
        "word_chunk",
        "x.py",
        "graded",
        tests=(
            outcome("a", "r", True),
            outcome("b", "s", True),
        ),
        max_score=2,
    )
    assert "All 2 public checks pass." in check_text(report)
    assert "good sign, not a promise" in check_text(report)
    assert all_passed(report)


def test_text_of_an_error_report_gives_the_message() -> None:
    report = GradeReport(
        "char_chunk",
        "x.py",
        "error",
        errors=(Problem("missing_definition", "x.py does not define chunk"),),
        max_score=12,
    )
    text = check_text(report)
    assert "0 of 12 points" in text and "x.py does not define chunk" in text
    assert not all_passed(report)


# --- in a namespace, as the notebook does ------------------------------------------------------


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_reference_solution_passes_every_public_check(lesson_id: str) -> None:
    report = check_namespace(lesson_id, namespace_of(KIT_ROOT / "solutions" / f"{lesson_id}.py"))
    assert report.status == "graded"
    assert report.tests and all(t.visibility == "visible" for t in report.tests)
    assert report.score == report.max_score > 0


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_stub_scores_zero(lesson_id: str) -> None:
    report = check_namespace(lesson_id, namespace_of(KIT_ROOT / "exercises" / f"{lesson_id}.py"))
    assert report.status == "graded"
    assert report.score == 0 and report.max_score > 0
    assert "NotImplementedError" in check_text(report)


def test_a_namespace_without_the_function_is_an_error_with_advice() -> None:
    report = check_namespace("char_chunk", {"chunks": lambda *a: []})
    assert report.status == "error" and report.score == 0 and report.max_score > 0
    assert report.errors[0].kind == "missing_definition"
    assert "run the exercise cell" in report.errors[0].message


def test_self_check_prints_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    self_check("char_chunk", namespace_of(KIT_ROOT / "solutions" / "char_chunk.py"))
    out = capsys.readouterr().out
    assert out.startswith("char_chunk self-check: ")
    assert "All " in out


def test_a_known_mistake_shows_the_input_expected_and_returned() -> None:
    mistake = KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "no_early_stop.py"
    text = check_text(check_namespace("char_chunk", namespace_of(mistake)))
    assert "Broken rule:" in text
    assert "Input: chunk(" in text and "Expected:" in text and "Got:" in text


# --- the time limit -------------------------------------------------------------------------


def slow(seconds: float, swallow: bool = False) -> Callable[[], dict[str, Any]]:
    def work() -> dict[str, Any]:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            try:
                time.sleep(0.01)
            except Exception:  # like student code with a broad except in its loop
                if not swallow:
                    raise
        return {"ok": None}

    return work


def test_a_call_past_the_limit_times_out_with_grading_s_message() -> None:
    with pytest.raises(CallTimedOut, match=r"^Your code did not finish within 0.2 seconds\.$"):
        within(0.2, slow(30))


def test_code_that_swallows_the_timeout_is_still_stopped_in_the_end() -> None:
    with pytest.raises(CallTimedOut):
        within(0.2, slow(1.5, swallow=True))


def test_code_that_catches_every_stop_is_left_and_the_check_goes_on() -> None:
    def stubborn() -> dict[str, Any]:
        until = time.monotonic() + 2
        while time.monotonic() < until:
            try:
                time.sleep(0.01)
            except BaseException:
                pass
        return {"ok": None}

    with pytest.raises(CallTimedOut, match="within 0.1 seconds"):
        within(0.1, stubborn)


def test_a_quick_call_is_answered_and_leaves_no_thread() -> None:
    import threading

    before = set(threading.enumerate())
    assert within(5, slow(0)) == {"ok": None}
    assert set(threading.enumerate()) <= before


# --- chunklab check ---------------------------------------------------------------------------


def test_check_of_the_reference_file_passes(chunklab) -> None:
    result = chunklab("check", "char_chunk", KIT_ROOT / "solutions" / "char_chunk.py")
    assert result.exit_code == 0
    assert "12 of 12" in result.stdout or "All " in result.stdout


def test_check_of_the_stub_fails(chunklab) -> None:
    result = chunklab("check", "word_chunk", KIT_ROOT / "exercises" / "word_chunk.py")
    assert result.exit_code == 1
    assert "word_chunk self-check: 0 of" in result.stdout


def test_check_of_a_notebook_uses_its_exercise_cell(chunklab, tmp_path: Path) -> None:
    code = (KIT_ROOT / "solutions" / "word_chunk.py").read_text()
    notebook = write_submission_notebook("word_chunk", code, tmp_path / "word_chunk.ipynb")
    result = chunklab("check", "word_chunk", notebook)
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize("where", [(), ("--in-process",)], ids=["sandbox", "in-process"])
def test_check_json_is_one_report_in_the_grade_schema(
    chunklab, validate_report, where: tuple[str, ...]
) -> None:
    stub = KIT_ROOT / "exercises" / "char_chunk.py"
    result = chunklab("check", "char_chunk", stub, "--json", *where)
    report = json.loads(result.stdout)
    validate_report(report)
    assert result.exit_code == 1
    assert report["lesson"] == "char_chunk" and report["status"] == "graded"
    assert report["score"] == 0 and report["max_score"] > 0
    assert {t["visibility"] for t in report["tests"]} == {"visible"}
    assert report["isolation"] in (("",) if where else ("namespaces", "process"))


def test_check_json_of_a_file_that_cannot_be_checked_is_in_the_grade_schema(
    chunklab, validate_report, tmp_path: Path
) -> None:
    result = chunklab("check", "char_chunk", tmp_path / "nowhere.py", "--json")
    report = json.loads(result.stdout)
    validate_report(report)
    stub = KIT_ROOT / "exercises" / "char_chunk.py"
    public = json.loads(chunklab("check", "char_chunk", stub, "--json").stdout)
    assert report["status"] == "error" and report["max_score"] == public["max_score"] > 0


def test_check_of_a_missing_file_is_a_message(chunklab, tmp_path: Path) -> None:
    result = chunklab("check", "char_chunk", tmp_path / "nowhere.py")
    assert result.exit_code == 1
    assert "there is no file" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_check_of_a_file_of_no_known_lesson_says_how_to_name_it(chunklab, tmp_path: Path) -> None:
    homework = tmp_path / "my_homework.py"
    homework.write_text("def f():\n    return 1\n")
    result = chunklab("check", homework)
    told = result.stdout + result.stderr
    assert result.exit_code != 0
    assert f"give the lesson first: chunklab check LESSON {homework}" in told
    # `check` takes the lesson as its first argument; it has no --lesson option.
    assert "--lesson" not in told


def test_check_without_a_file_looks_in_the_current_folder(
    chunklab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = chunklab("check", "char_chunk")
    assert result.exit_code == 1 and "looked for char_chunk.py" in result.stdout
    (tmp_path / "char_chunk.py").write_text((KIT_ROOT / "solutions" / "char_chunk.py").read_text())
    result = chunklab("check", "char_chunk")
    assert result.exit_code == 0 and "Checking char_chunk.py" in result.stdout


def test_check_of_a_file_without_the_function(chunklab, tmp_path: Path) -> None:
    path = tmp_path / "char_chunk.py"
    path.write_text("def chunks(text, size, overlap):\n    return []\n")
    result = chunklab("check", "char_chunk", path)
    assert result.exit_code == 1
    assert "does not define the function `chunk`" in result.stdout


def test_check_of_a_file_with_a_syntax_error_names_the_line(chunklab, tmp_path: Path) -> None:
    path = tmp_path / "char_chunk.py"
    path.write_text("def chunk(text, size, overlap)\n    return []\n")
    result = chunklab("check", "char_chunk", path)
    assert result.exit_code == 1
    assert "line 1" in result.stdout and "Traceback" not in result.stdout


def test_what_the_file_prints_stays_out_of_the_json(chunklab, tmp_path: Path) -> None:
    path = tmp_path / "char_chunk.py"
    path.write_text(
        "print('hello from the top')\n\ndef chunk(text, size, overlap):\n"
        "    print('hello from inside')\n    return []\n"
    )
    result = chunklab("check", "char_chunk", path, "--json")
    assert json.loads(result.stdout)["status"] == "graded"


def test_check_of_a_file_that_never_finishes_loading(
    chunklab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "char_chunk.py"
    path.write_text("while True:\n    pass\n")
    result = chunklab("check", "char_chunk", path, "--call-seconds", "0.3", "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["status"] == "error" and report["errors"][0]["kind"] == "timeout"
    # Loading gets its own short limit, whatever the per-call ceiling.
    assert re.search(
        r"took longer than [0-9.]+ seconds before any test could start",
        report["errors"][0]["message"],
    )


def test_an_interrupt_stops_the_self_check_instead_of_failing_one_check() -> None:
    def chunk(text, size, overlap):
        os.kill(os.getpid(), signal.SIGINT)  # what pressing "interrupt" in Jupyter does
        time.sleep(5)

    # A kernel turns SIGINT into KeyboardInterrupt. A process started in the background
    # by a script ignores SIGINT from its start, and Python then installs no handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # Limits far longer than a busy machine can delay the call's first line: the
    # interrupt, not the clock, must end the call.
    generous = Limits(call_seconds=30.0, call_floor_seconds=30.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            check_namespace("char_chunk", {"chunk": chunk}, limits=generous)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_code_that_raises_keyboard_interrupt_itself_is_checked_as_grading_does() -> None:
    def chunk(text, size, overlap):
        raise KeyboardInterrupt

    report = check_namespace("char_chunk", {"chunk": chunk})
    assert report.status == "graded" and report.score == 0
    assert {t.outcome for t in report.tests} == {"failed"}


def test_code_that_fails_after_defining_the_function_is_checked_with_a_note(
    chunklab, tmp_path: Path
) -> None:
    path = tmp_path / "char_chunk.py"
    solution = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()
    path.write_text(solution + '\nraise RuntimeError("left over from testing")\n')
    result = chunklab("check", "char_chunk", path)
    assert result.exit_code == 0
    assert "Note: part of your code failed to run" in result.stdout
    assert "left over from testing" in result.stdout
