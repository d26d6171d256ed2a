"""`--resume`: a report is reused only for the same resolved path, lesson and content."""

from __future__ import annotations

import csv
import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chunklab.pipeline.parallel as parallel_module
from chunklab.pipeline.parallel import grade_many
from chunklab.report_out.resume import INDEX_NAME


@pytest.fixture
def graded_now(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The submissions each run actually grades (not reused), run by run."""
    runs: list[list[str]] = []

    def spy(items: list, *args: Any) -> Iterator:
        runs.append([Path(item.display).name for _, item in items])
        return grade_many(items, *args)

    monkeypatch.setattr(parallel_module, "grade_many", spy)
    return runs


@pytest.fixture
def three(tmp_path: Path, kit_root: Path) -> Path:
    folder = tmp_path / "class"
    folder.mkdir()
    reference = (kit_root / "solutions/char_chunk.py").read_text()
    for name in ("a_char_chunk.py", "b_char_chunk.py", "c_char_chunk.py"):
        (folder / name).write_text(reference)
    return folder


def students_in(gradebook: Path) -> list[str]:
    with gradebook.open(newline="") as stream:
        return [row["student"] for row in csv.DictReader(stream)]


def test_an_interrupted_run_keeps_what_it_graded_and_resume_grades_the_rest(
    chunklab, tmp_path, three, graded_now, monkeypatch
):
    def one_then_interrupt(items: list, *args: Any) -> Iterator:
        graded_now.append([Path(item.display).name for _, item in items])
        yield next(iter(grade_many(items[:1], *args)))
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel_module, "grade_many", one_then_interrupt)
    out = tmp_path / "out"
    stopped = chunklab("grade", "--jobs", "1", "--out", out, three)
    assert stopped.exit_code == 130
    assert "interrupted: 1 of 3 graded; rerun with --resume" in stopped.stderr
    assert [r["student"] for r in stopped.reports] == ["a"]
    # Every class file says the run is partial, and how much of it was graded.
    with (out / "gradebook.csv").open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [row["student"] for row in rows] == ["a", "(run interrupted)"]
    assert (rows[1]["status"], rows[1]["first_error"]) == (
        "interrupted",
        "graded 1 of 3; rerun with --resume",
    )
    partial = json.loads((out / "summary.json").read_text())
    assert (partial["interrupted"], partial["graded"], partial["found"]) == (True, 1, 3)
    assert "The run was interrupted: 1 of 3 submission(s) were graded" in (
        out / "report.html"
    ).read_text()
    monkeypatch.undo()
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    spied: list[list[str]] = []

    def spy(items: list, *args: Any) -> Iterator:
        spied.append([Path(item.display).name for _, item in items])
        return grade_many(items, *args)

    monkeypatch.setattr(parallel_module, "grade_many", spy)
    resumed = chunklab("grade", "--jobs", "1", "--out", out, "--resume", three)
    assert resumed.exit_code == 0
    assert spied == [["b_char_chunk.py", "c_char_chunk.py"]]
    assert [r["student"] for r in resumed.reports] == ["a", "b", "c"]
    assert resumed.reports[0] == stopped.reports[0]
    assert students_in(out / "gradebook.csv") == ["a", "b", "c"]


def test_a_renamed_file_is_graded_again_and_its_old_report_is_left_out(
    chunklab, tmp_path, three, graded_now
):
    out = tmp_path / "out"
    chunklab("grade", "--jobs", "1", "--out", out, three)
    (three / "b_char_chunk.py").rename(three / "bea_char_chunk.py")
    resumed = chunklab("grade", "--jobs", "1", "--out", out, "--resume", three)
    assert graded_now[-1] == ["bea_char_chunk.py"]
    assert [r["student"] for r in resumed.reports] == ["a", "bea", "c"]
    assert students_in(out / "gradebook.csv") == ["a", "bea", "c"]
    assert "1 earlier report(s) belong to submissions no longer here" in resumed.stderr
    assert str(three / "b_char_chunk.py") in resumed.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["vanished"] == [str(three / "b_char_chunk.py")]
    assert summary["submissions"] == 3


def test_a_changed_file_is_graded_again(chunklab, tmp_path, three, graded_now):
    out = tmp_path / "out"
    first = chunklab("grade", "--jobs", "1", "--out", out, three)
    assert first.reports[2]["score"] == first.reports[2]["max_score"]
    (three / "c_char_chunk.py").write_text("def chunk(text, size, overlap):\n    return []\n")
    resumed = chunklab("grade", "--jobs", "1", "--out", out, "--resume", three)
    assert graded_now[-1] == ["c_char_chunk.py"]
    assert resumed.reports[2]["score"] < first.reports[2]["score"]
    assert resumed.reports[:2] == first.reports[:2]


def test_a_grade_is_never_reused_for_another_lesson(chunklab, tmp_path, kit_root, graded_now):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_bytes((kit_root / "solutions/word_chunk.py").read_bytes())
    out = tmp_path / "out"
    as_char = chunklab("grade", "--out", out, "--lesson", "char_chunk", folder).reports[0]
    assert (as_char["lesson"], as_char["status"]) == ("char_chunk", "error")
    as_word = chunklab("grade", "--out", out, "--resume", "--lesson", "word_chunk", folder)
    assert graded_now[-1] == ["ann.py"]
    [report] = as_word.reports
    assert (report["lesson"], report["score"]) == ("word_chunk", report["max_score"])
    again = chunklab("grade", "--out", out, "--resume", "--lesson", "word_chunk", folder)
    assert graded_now[-1] == []  # the third run reused the word_chunk grade
    assert again.reports == as_word.reports


def test_resume_works_with_the_gradescope_format(chunklab, tmp_path, three, graded_now):
    out = tmp_path / "out"
    first = chunklab("grade", "--jobs", "1", "--format", "gradescope", "--out", out, three)
    resumed = chunklab(
        "grade", "--jobs", "1", "--format", "gradescope", "--out", out, "--resume", three
    )
    assert graded_now[-1] == []
    assert resumed.reports == first.reports
    assert all("tests" in r and "extra_data" in r for r in resumed.reports)
    assert students_in(out / "gradebook.csv") == ["a", "b", "c"]


def test_resume_needs_an_output_folder(chunklab, three):
    result = chunklab("grade", "--resume", three)
    assert result.exit_code == 2
    assert "--resume needs --out" in result.stderr


def test_a_run_without_resume_starts_the_index_afresh(chunklab, tmp_path, three):
    out = tmp_path / "out"
    chunklab("grade", "--jobs", "1", "--out", out, three)
    chunklab("grade", "--jobs", "1", "--out", out, three)
    lines = (out / INDEX_NAME).read_text().splitlines()
    assert [json.loads(line)["report"]["student"] for line in lines] == ["a", "b", "c"]
    # It holds grades, as the other output files do: the grading user's alone.
    assert stat.S_IMODE((out / INDEX_NAME).stat().st_mode) == 0o600
