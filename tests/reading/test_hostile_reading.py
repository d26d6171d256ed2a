"""Threats to reading: links, special files, sizes, malformed notebooks, a student-chosen lesson.

Each test grades as an instructor would and checks the run survives with
every other submission's report intact.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.errors import SubmissionError
from chunklab.reading import read as read_module
from chunklab.reading.read import read_submission
from chunklab.reading.safe_file import read_regular_file

KIT_ROOT = Path(__file__).resolve().parents[2]
CHAR_SOLUTION = KIT_ROOT / "solutions" / "char_chunk.py"
WORD_SOLUTION = (KIT_ROOT / "solutions" / "word_chunk.py").read_text()


def by_name(reports: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {Path(r["submission"]).name: r for r in reports}


def notebook_data(code: str = WORD_SOLUTION) -> dict[str, Any]:
    return json.loads(notebook_text(submission_notebook("word_chunk", code)))


def exercise_cell(data: dict[str, Any]) -> dict[str, Any]:
    [cell] = [c for c in data["cells"] if "chunklab-exercise" in c["metadata"].get("tags", [])]
    return cell


def test_links_and_special_files_are_refused_and_never_followed(chunklab, tmp_path):
    elsewhere = tmp_path / "elsewhere" / "dave"
    elsewhere.mkdir(parents=True)
    (elsewhere / "char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "a_char_chunk.py").symlink_to(CHAR_SOLUTION)  # a link to the solution
    (folder / "b_char_chunk.py").symlink_to("/dev/zero")
    (folder / "bob").symlink_to(elsewhere)  # a student folder that is another's
    (folder / "carol").mkdir()
    (folder / "carol" / "char_chunk.py").symlink_to(CHAR_SOLUTION)
    (folder / "erin").mkdir()
    (folder / "erin" / "char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    (folder / "erin" / "helper.py").symlink_to(elsewhere / "char_chunk.py")
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(folder / "f_char_chunk.py"))
    (folder / "g_char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    # Paths given on the command line are the instructor's own: followed when links.
    (tmp_path / "class_link").symlink_to(folder)
    (tmp_path / "mine_char_chunk.py").symlink_to(CHAR_SOLUTION)
    try:
        result = chunklab(
            "grade", "--jobs", "1", tmp_path / "class_link", tmp_path / "mine_char_chunk.py"
        )
    finally:
        listening.close()
    assert result.exit_code == 0
    reports = by_name(result.reports)
    assert sorted(reports) == [
        "a_char_chunk.py", "b_char_chunk.py", "bob", "carol", "erin", "f_char_chunk.py",
        "g_char_chunk.py", "mine_char_chunk.py",
    ]  # fmt: skip
    for name in ("a_char_chunk.py", "b_char_chunk.py", "bob", "carol", "erin", "f_char_chunk.py"):
        report = reports[name]
        assert (report["status"], report["score"]) == ("error", 0), name
        assert [e["kind"] for e in report["errors"]] == ["unsafe_path"], name
    assert "symbolic link" in reports["a_char_chunk.py"]["errors"][0]["message"]
    assert reports["a_char_chunk.py"]["max_score"] == reports["g_char_chunk.py"]["max_score"]
    assert "erin/helper.py is a symbolic link" in reports["erin"]["errors"][0]["message"]
    assert "socket" in reports["f_char_chunk.py"]["errors"][0]["message"]
    for name in ("g_char_chunk.py", "mine_char_chunk.py"):
        assert reports[name]["status"] == "graded"
        assert reports[name]["score"] == reports[name]["max_score"] > 0


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "char_chunk.py")
    (tmp_path / "student").mkdir()
    os.mkfifo(tmp_path / "student" / "char_chunk.py")
    kinds: list[str] = []

    def read_both() -> None:
        for path in (tmp_path / "char_chunk.py", tmp_path / "student"):
            try:
                read_submission(path)
            except SubmissionError as error:
                kinds.append(error.kind)

    reader = threading.Thread(target=read_both, daemon=True)
    reader.start()
    reader.join(60)  # a guard only: reading a FIFO that waited would never end
    assert kinds == ["unsafe_path", "unsafe_path"]


def test_the_size_limit_counts_bytes_read_not_what_stat_says():
    # /proc files say they are empty and are not: the limit holds all the same.
    status = Path("/proc/self/status")
    assert status.stat().st_size == 0
    assert len(read_regular_file(status, 100)) == 101


def test_size_limit_is_an_option_and_counts_code_not_notebook_outputs(chunklab, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "big_char_chunk.py").write_text(CHAR_SOLUTION.read_text() + "#" * 9000 + "\n")
    data = notebook_data()
    cell = exercise_cell(data)
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x" * 6_000_000}]
    (folder / "plots_word_chunk.ipynb").write_text(json.dumps(data))
    cell["outputs"][0]["text"] = "x" * 17_000_000  # outputs have a bound of their own
    (folder / "huge_plots_word_chunk.ipynb").write_text(json.dumps(data))
    cell["outputs"] = []
    cell["source"] = WORD_SOLUTION + "#" * 9000
    (folder / "wordy_word_chunk.ipynb").write_text(json.dumps(data))
    cell["source"] = WORD_SOLUTION
    data["metadata"]["bomb"] = [{}] * 1_000_001  # 3 MB that would take 70 MB parsed
    (folder / "bomb_word_chunk.ipynb").write_text(json.dumps(data, separators=(",", ":")))
    result = chunklab("grade", "--jobs", "1", "--max-submission-kb", "8", folder)
    assert result.exit_code == 0
    reports = by_name(result.reports)
    plots = reports["plots_word_chunk.ipynb"]
    assert plots["status"] == "graded"
    assert plots["score"] == plots["max_score"] > 0
    for name, lesson in (
        ("big_char_chunk.py", "char_chunk"),
        ("wordy_word_chunk.ipynb", "word_chunk"),
    ):
        report = reports[name]
        assert report["status"] == "error"
        assert report["lesson"] == lesson
        assert report["max_score"] > 0
        [error] = report["errors"]
        assert error["kind"] == "too_large"
        assert "at most 8,192 bytes" in error["message"]
    [huge] = reports["huge_plots_word_chunk.ipynb"]["errors"]
    assert huge["kind"] == "too_large"
    assert "with its outputs; clear its outputs" in huge["message"]
    [bomb] = reports["bomb_word_chunk.ipynb"]["errors"]
    assert bomb["kind"] == "too_large"
    assert "more than 1,000,000 JSON values" in bomb["message"]
    help_text = chunklab("grade", "--help").stdout
    assert "--max-submission-kb" in help_text
    assert "(default: 1024)" in " ".join(help_text.split())


def deeply_nested(depth: int) -> str:
    return "[" * depth + "]" * depth


MALFORMED = {
    "cells_not_a_list": lambda d: d.update(cells={"0": d["cells"][0]}),
    "metadata_not_a_mapping": lambda d: d.update(metadata=["chunklab"]),
    "numeric_source": lambda d: exercise_cell(d).update(source=42),
    "source_lines_not_text": lambda d: exercise_cell(d).update(source=[1, 2]),
    "cell_not_a_dict": lambda d: d["cells"].append("print('hi')"),
    "cell_type_not_text": lambda d: d["cells"][0].update(cell_type=["code"]),
    "cell_metadata_not_a_mapping": lambda d: exercise_cell(d).update(metadata="x"),
    "tags_not_a_list": lambda d: exercise_cell(d)["metadata"].update(tags=5),
    "version_not_a_number": lambda d: d.update(nbformat="4"),
    "lone_surrogate_in_code": lambda d: exercise_cell(d).update(source="x = '\ud800'\n"),
    "worksheets_not_a_list": lambda d: (d.pop("cells"), d.update(nbformat=3, worksheets=7)),
}
# Written as text, as a hand-made file would be: JSON that json.loads itself refuses.
MALFORMED_TEXT = {
    "huge_integer": lambda text: text.replace('"nbformat": 4', '"nbformat": ' + "9" * 5000),
    "deep_nesting": lambda text: text.replace(
        '"metadata": {', '"metadata": {"x": ' + deeply_nested(100_000) + ",", 1
    ),
}


def test_malformed_notebooks_are_broken_notebooks_graded_in_one_pass(
    chunklab, tmp_path, monkeypatch
):
    folder = tmp_path / "class"
    folder.mkdir()
    for name, spoil in MALFORMED.items():
        data = notebook_data()
        spoil(data)
        (folder / f"{name}_word_chunk.ipynb").write_text(json.dumps(data))
    for name, spoil_text in MALFORMED_TEXT.items():
        (folder / f"{name}_word_chunk.ipynb").write_text(
            spoil_text(json.dumps(notebook_data(), indent=1))
        )
    data = notebook_data()
    # Nesting that JSON allows, in metadata grading never looks at.
    data["metadata"]["deep"] = json.loads(deeply_nested(900))
    (folder / "good_word_chunk.ipynb").write_text(json.dumps(data))
    reads: list[str] = []
    read_submission = read_module.read_submission
    monkeypatch.setattr(
        read_module,
        "read_submission",
        lambda path, *rest: reads.append(path.name) or read_submission(path, *rest),
    )
    result = chunklab("grade", "--jobs", "1", folder)
    assert result.exit_code == 0
    reports = by_name(result.reports)
    good = reports.pop("good_word_chunk.ipynb")
    assert good["status"] == "graded"
    assert good["score"] == good["max_score"] > 0
    assert len(reports) == len(MALFORMED) + len(MALFORMED_TEXT)
    for name, report in reports.items():
        assert report["status"] == "error", name
        assert [e["kind"] for e in report["errors"]] == ["broken_notebook"], name
        assert (report["lesson"], report["max_score"]) == ("word_chunk", good["max_score"]), name
    # Each read once: a broken notebook never makes the others be graded again one by one.
    assert sorted(reads) == sorted(p.name for p in folder.iterdir())


def test_a_lesson_named_against_the_file_name_is_a_conflict(chunklab, tmp_path):
    path = tmp_path / "char_chunk.ipynb"
    path.write_text(json.dumps(notebook_data()))  # a word_chunk notebook
    [report] = chunklab("grade", path).reports
    assert report["status"] == "error"
    [error] = report["errors"]
    assert error["kind"] == "lesson_conflict"
    assert "char_chunk" in error["message"] and "word_chunk" in error["message"]
    [chosen] = chunklab("grade", "--lesson", "word_chunk", path).reports
    assert chosen["status"] == "graded"
    assert chosen["score"] == chosen["max_score"] > 0


@pytest.mark.parametrize("magic", ["%%time", "%%capture captured", "%%prun -q"])
def test_cell_magics_that_run_python_are_graded_and_others_skipped_with_a_warning(
    chunklab, tmp_path, magic
):
    data = notebook_data(f"{magic}\n{WORD_SOLUTION}")
    extra = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    data["cells"] += [
        {**extra, "id": "sh", "source": "%%bash\necho hi\n"},
        {**extra, "id": "plot", "source": "%matplotlib inline\nvalue = 1\n"},
    ]
    path = tmp_path / "word_chunk.ipynb"
    path.write_text(json.dumps(data))
    [report] = chunklab("grade", path).reports
    assert report["status"] == "graded"
    assert report["score"] == report["max_score"] > 0
    assert [w["kind"] for w in report["warnings"]] == ["magic_skipped", "magic_skipped"]
    assert "%%bash" in report["warnings"][0]["message"]
    assert "%matplotlib inline" in report["warnings"][1]["message"]


# Inputs that make Python's parser or its JSON reader recurse, or run out of memory.
DEEP_SUM = "x = " + "1+" * 100_000 + "1\n"
DEEP_MINUS = "x = " + "-" * 100_000 + "1\n"
DEEP_JSON = "[" * 100_000


def test_files_that_break_a_parser_never_stop_the_finding_or_grading_of_a_class(chunklab, tmp_path):
    folder = tmp_path / "class"
    (folder / "mallory").mkdir(parents=True)
    (folder / "mallory" / "char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    (folder / "mallory" / "char_chunk_notes.py").write_text(DEEP_SUM)
    (folder / "mallory" / "notes.ipynb").write_text(DEEP_JSON)
    (folder / "a_word_chunk.py").write_text(WORD_SOLUTION)
    result = chunklab("grade", "--jobs", "1", folder)
    assert result.exit_code == 0, result.stderr
    reports = by_name(result.reports)
    assert sorted(reports) == ["a_word_chunk.py", "mallory"]
    for report in reports.values():
        assert report["status"] == "graded"
        assert report["score"] == report["max_score"] > 0
    assert reports["mallory"]["warnings"] == [
        {
            "kind": "file_skipped",
            "message": "notes.ipynb was not looked into to choose the file to grade: "
            "notes.ipynb is not a valid notebook: its JSON is nested too deeply; "
            "open it in Jupyter and save it again",
        }
    ]


def test_the_lessons_file_is_found_beside_code_that_breaks_a_parser(tmp_path):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "solution.py").write_text(CHAR_SOLUTION.read_text())
    (folder / "notes.py").write_text(DEEP_MINUS)
    (folder / "sums.py").write_text(DEEP_SUM)
    source = read_submission(folder, "char_chunk")
    assert (source.path.name, source.lesson.id) == ("solution.py", "char_chunk")


@pytest.mark.parametrize(
    ("failure", "kind", "says"),
    [
        (RecursionError("deep"), "unreadable", "nested too deeply or is too large to read"),
        (MemoryError(), "unreadable", "too large to read (MemoryError)"),
        (RuntimeError("a fault"), "internal", "(RuntimeError: a fault); tell your"),
    ],
)
def test_any_failure_reading_a_submission_is_its_own_error_and_the_class_goes_on(
    tmp_path, monkeypatch, failure, kind, says
):
    from chunklab.reading import candidates, read

    folder = tmp_path / "class"
    (folder / "mallory").mkdir(parents=True)
    (folder / "mallory" / "char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    (folder / "mallory" / "notes.ipynb").write_text("{}")
    (folder / "a_char_chunk.py").write_text(CHAR_SOLUTION.read_text())

    def fails(path: Path, limit: int, folder: Any = None) -> Any:
        raise failure

    monkeypatch.setattr(candidates, "look_at", fails)
    found = read.find_submissions([folder])
    assert [(f.path.name, f.lesson) for f in found] == [
        ("a_char_chunk.py", None),
        ("mallory", None),  # one submission, whose reading tells why
    ]
    with pytest.raises(SubmissionError) as raised:
        read_submission(folder / "mallory")
    assert raised.value.kind == kind and says in str(raised.value)
    assert read_submission(folder / "a_char_chunk.py").lesson.id == "char_chunk"


def test_check_on_a_folder_beside_code_that_breaks_a_parser_checks_the_lessons_file(
    chunklab, tmp_path
):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    (folder / "char_chunk_notes.py").write_text(DEEP_SUM)
    (folder / "notes.ipynb").write_text(DEEP_JSON)
    for args in (["char_chunk", folder], [folder]):
        result = chunklab("check", "--json", *args)
        assert result.exit_code == 0, result.stderr
        [report] = result.reports
        assert report["status"] == "graded" and report["score"] == report["max_score"] > 0


def test_an_entry_gone_while_the_class_is_listed_is_its_own_error(tmp_path, monkeypatch):
    from chunklab.reading import read

    (tmp_path / "a_char_chunk.py").write_text(CHAR_SOLUTION.read_text())
    listed = read.folder_submissions(tmp_path) + [tmp_path / "gone"]
    monkeypatch.setattr(read, "folder_submissions", lambda folder: listed)
    found = read.find_submissions([tmp_path])
    assert [f.path.name for f in found] == ["a_char_chunk.py", "gone"]
    with pytest.raises(SubmissionError, match="gone cannot be opened: No such file"):
        read_submission(found[1].path)
