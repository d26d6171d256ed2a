"""`chunklab grade` as an instructor uses it: references, stubs, broken submissions, outputs."""

from __future__ import annotations

import csv
import gc
import json
from pathlib import Path

import pytest

from tests.conftest import LESSON_IDS


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_reference_solution_gets_full_marks(chunklab, validate_report, lesson):
    result = chunklab("grade", f"solutions/{lesson}.py")
    assert result.exit_code == 0
    [report] = result.reports
    validate_report(report)
    assert report["lesson"] == lesson
    assert report["status"] == "graded"
    assert report["max_score"] > 0
    assert report["score"] == report["max_score"]
    assert {t["outcome"] for t in report["tests"]} == {"passed"}


def test_stubs_score_zero_with_every_test_failing_cleanly(chunklab, validate_report):
    result = chunklab("grade", "--hidden-feedback", "full", "exercises/")
    assert result.exit_code == 0
    reports = result.reports
    assert [r["lesson"] for r in reports] == sorted(LESSON_IDS)
    for report in reports:
        validate_report(report)
        assert report["status"] == "graded"
        assert report["score"] == 0
        assert report["max_score"] > 0
        for test in report["tests"]:
            assert test["outcome"] == "failed", test
            assert "NotImplementedError" in test["feedback"], test
            assert "Traceback" not in test["feedback"]


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.fixture
def broken_class(tmp_path: Path, kit_root: Path) -> Path:
    """A class folder with one good submission among broken ones (and no slow one)."""
    folder = tmp_path / "class"
    folder.mkdir()
    write(folder, "a_syntax_char_chunk.py", "def chunk(text, size, overlap)\n    return []\n")
    write(folder, "b_missing_char_chunk.py", "def chunks(text, size, overlap):\n    return []\n")
    write(folder, "c_garbage_char_chunk.py", bytes(range(256)) * 4)
    write(folder, "d_broken_char_chunk.ipynb", '{"cells": [')
    write(folder, "e_good_char_chunk.py", (kit_root / "solutions/char_chunk.py").read_text())
    write(folder, "f_no_lesson.py", "def chunk(text, size, overlap):\n    return []\n")
    write(folder, "g_exit_char_chunk.py", "import os\nos._exit(3)\n")
    return folder


def test_broken_submissions_are_errors_and_do_not_stop_the_batch(
    chunklab, validate_report, broken_class
):
    write(broken_class, "h_loop_char_chunk.py", "while True:\n    pass\n")
    result = chunklab("grade", "--jobs", "1", broken_class)
    assert result.exit_code == 0
    reports = {Path(r["submission"]).name: r for r in result.reports}
    for report in reports.values():
        validate_report(report)
    expected_errors = {
        "a_syntax_char_chunk.py": "syntax_error",
        "b_missing_char_chunk.py": "missing_definition",
        "c_garbage_char_chunk.py": "unreadable",
        "d_broken_char_chunk.ipynb": "broken_notebook",
        "f_no_lesson.py": "unknown_lesson",
        "g_exit_char_chunk.py": "worker_died",
        "h_loop_char_chunk.py": "timeout",
    }
    for name, kind in expected_errors.items():
        report = reports[name]
        assert report["status"] == "error", name
        assert report["score"] == 0
        assert [e["kind"] for e in report["errors"]] == [kind], name
    assert "line 1" in reports["a_syntax_char_chunk.py"]["errors"][0]["message"]
    assert "`chunk`" in reports["b_missing_char_chunk.py"]["errors"][0]["message"]
    assert "--lesson" in reports["f_no_lesson.py"]["errors"][0]["message"]
    good = reports["e_good_char_chunk.py"]
    assert good["status"] == "graded"
    assert good["score"] == good["max_score"] > 0
    # Errors still carry the lesson's full marks when the lesson is known.
    assert reports["a_syntax_char_chunk.py"]["max_score"] == good["max_score"]


def test_results_are_in_input_order(chunklab, broken_class):
    result = chunklab("grade", "--jobs", "2", broken_class)
    names = [Path(r["submission"]).name for r in result.reports]
    assert names == sorted(p.name for p in broken_class.iterdir())


def test_out_folder_holds_reports_gradebook_and_summary(chunklab, tmp_path, broken_class):
    out = tmp_path / "out"
    result = chunklab("grade", "--out", out, broken_class)
    assert result.exit_code == 0
    files = sorted(p.name for p in (out / "submissions").iterdir())
    assert len(files) == len(result.reports) == 7
    for report in result.reports:
        [match] = [f for f in files if Path(report["submission"]).name in f]
        assert json.loads((out / "submissions" / match).read_text()) == report
    with (out / "gradebook.csv").open() as stream:
        rows = list(csv.DictReader(stream))
    assert [r["submission"] for r in rows] == [r["submission"] for r in result.reports]
    assert [r["student"] for r in rows] == [r["student"] for r in result.reports]
    assert list(rows[0])[:7] == [
        "student",
        "lesson",
        "score",
        "max_score",
        "percent",
        "status",
        "first_error",
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["submissions"] == 7
    assert summary["statuses"] == {"graded": 1, "error": 6}
    assert not [p for p in out.rglob("*.tmp")]


def test_grading_here_gives_the_collector_back_its_thresholds(chunklab):
    # While this process grades, the collector mostly waits for a session's end.
    before = gc.get_threshold()
    assert chunklab("grade", "--jobs", "1", "solutions/char_chunk.py").exit_code == 0
    assert gc.get_threshold() == before


def test_same_submission_twice_gives_the_same_score(chunklab, kit_root):
    mistake = sorted((kit_root / "solutions/mistakes/char_chunk").glob("*.py"))[0]
    first = chunklab("grade", "--lesson", "char_chunk", mistake).reports[0]
    second = chunklab("grade", "--lesson", "char_chunk", mistake).reports[0]
    assert first["score"] < first["max_score"]
    strip = [{k: v for k, v in t.items()} for t in first["tests"]]
    assert strip == second["tests"]


def test_usage_errors_exit_with_2(chunklab, tmp_path):
    missing = chunklab("grade", tmp_path / "nowhere.py")
    assert missing.exit_code == 2
    assert "does not exist" in missing.stderr
    unknown = chunklab("grade", "--lesson", "sentence_chunk", tmp_path)
    assert unknown.exit_code == 2


def test_gradescope_format(chunklab, tmp_path):
    out = tmp_path / "out"
    result = chunklab("grade", "--format", "gradescope", "--out", out, "solutions/word_chunk.py")
    [results] = result.reports
    assert results["score"] == sum(t["max_score"] for t in results["tests"])
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_published"}
    assert json.loads((out / "results.json").read_text()) == results


def test_table_on_stderr(chunklab):
    result = chunklab("grade", "solutions/char_chunk.py")
    assert "solutions/char_chunk.py" in result.stderr
    header = result.stderr.splitlines()[0].split()
    assert header[:4] == ["submission", "lesson", "score", "status"]


def test_pytest_settings_from_the_environment_change_no_grade(
    chunklab, kit_root, tmp_path, monkeypatch
):
    """An instructor's shell may set PYTEST_ADDOPTS or PYTEST_PLUGINS; grades stay the same."""
    mistake = kit_root / "solutions" / "mistakes" / "char_chunk" / "no_early_stop.py"
    expected = chunklab("grade", mistake).reports[0]
    (tmp_path / "pass_everything.py").write_text(
        "import pytest\n"
        "@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n"
        "    outcome.get_result().outcome = 'passed'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTEST_PLUGINS", "pass_everything")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x --maxfail=1")
    graded = chunklab("grade", mistake).reports[0]
    assert 0 < expected["score"] < expected["max_score"]
    assert graded["score"] == expected["score"]
    assert graded["tests"] == expected["tests"]
