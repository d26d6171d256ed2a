"""Reading submissions: `.py` files, notebooks as Jupyter saves them, folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.errors import (
    BrokenNotebookError,
    LessonNotFoundError,
    UnreadableSubmissionError,
    UsageError,
)
from chunklab.reading.magics import CellCode, strip_magics
from chunklab.reading.read import find_submissions, read_submission

KIT_ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (KIT_ROOT / "solutions" / "word_chunk.py").read_text()


def notebook_file(tmp_path: Path, name: str, code: str = REFERENCE) -> Path:
    path = tmp_path / name
    path.write_text(notebook_text(submission_notebook("word_chunk", code)))
    return path


def as_saved_by_jupyter(path: Path) -> Path:
    """Outputs, execution counts, widget state and an older minor version, as a real save has."""
    data = json.loads(path.read_text())
    data["nbformat_minor"] = 2
    data["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    for number, cell in enumerate(data["cells"]):
        cell.pop("id", None)
        if cell["cell_type"] == "code":
            cell["execution_count"] = number
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
    saved = path.with_name("saved_" + path.name)
    saved.write_text(json.dumps(data, indent=1))
    return saved


def test_magics_and_shell_lines_are_blanked_keeping_line_numbers():
    source = "%timeit x = 1\n!pip install numpy\nx = 2\n  %matplotlib inline\ny = 3"
    code = strip_magics(source, "cell 2")
    assert code.source == "\n\nx = 2\n\ny = 3"
    assert [w.kind for w in code.warnings] == ["magic_skipped"]
    assert code.warnings[0].message.startswith("cell 2: line(s) 1, 2, 4 (such as `%timeit x = 1`)")
    bash = strip_magics("%%bash\necho hi\n", "cell 3")
    assert bash.source == ""
    assert "%%bash" in bash.warnings[0].message
    assert strip_magics("x = 1\n", "cell 1").warnings == ()


def test_notebook_cells_the_kit_owns_are_left_out(tmp_path):
    path = notebook_file(tmp_path, "answer.ipynb")
    source = read_submission(path)
    assert source.kind == "notebook"
    assert source.lesson.id == "word_chunk"
    joined = "\n".join(cell.source for cell in source.cells)
    assert "def solve" in joined
    assert "self_check" not in joined
    assert all(cell.label.startswith("cell ") for cell in source.cells)


def test_a_kit_cell_copied_without_its_tag_is_left_out_and_said(tmp_path):
    path = notebook_file(tmp_path, "answer.ipynb")
    data = json.loads(path.read_text())
    untagged = [
        "# run the checks again\nfrom chunklab.student.selfcheck import self_check\n"
        "self_check('word_chunk', globals())",
        "from chunklab.student.showing import show_chunks as shown\ndisplay(shown('a b', ['a']))",
        # Not the kit's alone: the student's own code beside the import is graded as it is.
        "from chunklab.student.selfcheck import self_check\nSIZE = 3",
    ]
    data["cells"] += [
        {"cell_type": "code", "metadata": {}, "source": code, "outputs": []} for code in untagged
    ]
    path.write_text(json.dumps(data))
    source = read_submission(path)
    count = len(data["cells"])
    assert [w.message.split(" is ")[0] for w in source.warnings] == [
        f"cell {count - 2}",
        f"cell {count - 1}",
    ]
    assert {w.kind for w in source.warnings} == {"kit_cell_skipped"}
    assert source.cells[-1].source == untagged[-1]
    assert "self_check(" not in "\n".join(cell.source for cell in source.cells)


def test_lesson_from_option_then_metadata_then_file_name(tmp_path):
    path = notebook_file(tmp_path, "anything.ipynb")
    assert read_submission(path).lesson.id == "word_chunk"
    assert read_submission(path, "char_chunk").lesson.id == "char_chunk"
    named = tmp_path / "my_char_chunk_try.py"
    named.write_text("def chunk(text, size, overlap):\n    return []\n")
    assert read_submission(named).lesson.id == "char_chunk"
    anonymous = tmp_path / "homework.py"
    anonymous.write_text("x = 1\n")
    with pytest.raises(LessonNotFoundError, match="--lesson"):
        read_submission(anonymous)


def test_not_json_is_a_broken_notebook(tmp_path):
    path = tmp_path / "word_chunk.ipynb"
    path.write_text('{"cells": [}')
    with pytest.raises(BrokenNotebookError, match="line 1, column 12"):
        read_submission(path)
    path.write_text('["a", "list"]')
    with pytest.raises(BrokenNotebookError, match="not a Jupyter notebook"):
        read_submission(path)


def test_binary_and_non_utf8_files_are_unreadable(tmp_path):
    binary = tmp_path / "word_chunk.py"
    binary.write_bytes(b"\x00\x01\x02def")
    with pytest.raises(UnreadableSubmissionError, match="binary"):
        read_submission(binary)
    latin = tmp_path / "char_chunk.py"
    latin.write_bytes("# caf\xe9\n".encode("latin-1"))
    with pytest.raises(UnreadableSubmissionError, match="UTF-8"):
        read_submission(latin)


def test_a_coding_line_names_the_encoding_python_reads_the_file_in(tmp_path):
    # PEP 263: a latin-1 file that says so is valid Python, as is one with a byte order mark.
    latin = tmp_path / "char_chunk.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1"))
    assert read_submission(latin).cells[0].source.endswith("NAME = 'caf\xe9'\n")
    marked = tmp_path / "word_chunk.py"
    marked.write_bytes(b"\xef\xbb\xbfNAME = 'caf\xc3\xa9'\n")
    assert read_submission(marked).cells[0].source == "NAME = 'caf\xe9'\n"
    unknown = tmp_path / "chunking_pipeline.py"
    unknown.write_bytes(b"# coding: no-such-codec\nNAME = 1\n")
    with pytest.raises(UnreadableSubmissionError, match="no-such-codec"):
        read_submission(unknown)
    wrong = tmp_path / "alice_char_chunk.py"
    wrong.write_bytes(b"# coding: ascii\nNAME = 'caf\xe9'\n")
    with pytest.raises(UnreadableSubmissionError, match="not ascii text as its coding line says"):
        read_submission(wrong)


def test_student_folders_and_sorted_order(tmp_path):
    (tmp_path / "zoe").mkdir()
    (tmp_path / "zoe" / "word_chunk.py").write_text(REFERENCE)
    (tmp_path / "adam_word_chunk.py").write_text(REFERENCE)
    (tmp_path / "notes.txt").write_text("not a submission")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    found = find_submissions([tmp_path])
    assert [p.path.name for p in found] == ["adam_word_chunk.py", "zoe"]
    assert read_submission(found[1].path).path.name == "word_chunk.py"
    (tmp_path / "zoe" / "scratch.py").write_text("x = 1\n")
    assert read_submission(found[1].path, "word_chunk").path.name == "word_chunk.py"
    # The only file named after a lesson is the one graded; the other may be a helper.
    assert read_submission(found[1].path).path.name == "word_chunk.py"
    (tmp_path / "zoe" / "word_chunk.py").rename(tmp_path / "zoe" / "mine.py")
    with pytest.raises(UnreadableSubmissionError, match="none names its lesson"):
        read_submission(found[1].path)
    with pytest.raises(UsageError, match="does not exist"):
        find_submissions([tmp_path / "missing"])


def test_a_saved_notebook_grades_like_a_fresh_one(chunklab, tmp_path):
    fresh = notebook_file(tmp_path, "word_chunk.ipynb")
    saved = as_saved_by_jupyter(fresh)
    buggy = notebook_file(
        tmp_path, "buggy_word_chunk.ipynb", REFERENCE.replace("text.split()", "text.split(' ')")
    )
    reports = chunklab("grade", fresh, as_saved_by_jupyter(buggy), saved).reports
    assert reports[0]["score"] == reports[0]["max_score"] > 0
    assert reports[2]["tests"] == reports[0]["tests"]
    assert 0 < reports[1]["score"] < reports[1]["max_score"]


def test_a_failing_cell_is_a_warning_and_the_rest_counts(chunklab, tmp_path):
    path = notebook_file(tmp_path, "word_chunk.ipynb", "print(undefined_name)\n" + REFERENCE)
    data = json.loads(path.read_text())
    code_cells = [c for c in data["cells"] if "chunklab-exercise" in c["metadata"].get("tags", [])]
    code_cells[0]["source"] = REFERENCE
    data["cells"].append(
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "oops",
            "metadata": {},
            "outputs": [],
            "source": "1 / 0\n",
        }
    )
    data["cells"].append(
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "typo",
            "metadata": {},
            "outputs": [],
            "source": "def broken(:\n",
        }
    )
    path.write_text(json.dumps(data))
    [report] = chunklab("grade", path).reports
    assert report["status"] == "graded"
    assert report["score"] == report["max_score"]
    kinds = [w["kind"] for w in report["warnings"]]
    assert kinds == ["cell_failed", "cell_failed"]
    assert "ZeroDivisionError" in report["warnings"][0]["message"]
    assert "invalid syntax" in report["warnings"][1]["message"]


SPIN = (
    "import time\n"
    "started = time.process_time()\n"
    "while time.process_time() - started < 0.6:\n"
    "    pass\n"
)


def scratch_cell(source: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "scratch",
        "metadata": {},
        "outputs": [],
        "source": source,
    }


def test_a_slow_cell_not_needed_for_the_definitions_is_a_warning(chunklab, tmp_path):
    # A scratch cell after the solution, taking longer than loading may: it is stopped,
    # and the solution is graded as it stands.
    after = notebook_file(tmp_path, "after_word_chunk.ipynb")
    data = json.loads(after.read_text())
    data["cells"].append(scratch_cell(SPIN))
    after.write_text(json.dumps(data))
    # The same demo in the cell that defines the function: nothing can be tested.
    inside = notebook_file(tmp_path, "inside_word_chunk.ipynb", REFERENCE + SPIN)
    graded, timed_out = chunklab("grade", after, inside).reports
    assert graded["status"] == "graded"
    assert graded["score"] == graded["max_score"]
    [warning] = graded["warnings"]
    assert warning["kind"] == "cell_too_slow"
    assert "was stopped: running your code took longer than" in warning["message"]
    assert timed_out["status"] == "error"
    assert timed_out["errors"][0]["kind"] == "timeout"


def test_a_version_3_notebook_is_read_as_version_4(tmp_path):
    from nbformat import v3

    notebook = v3.new_notebook(
        worksheets=[
            v3.new_worksheet(
                cells=[
                    v3.new_text_cell("markdown", source="# My answer"),
                    v3.new_code_cell(input=REFERENCE),
                ]
            )
        ],
        metadata={"chunklab": {"lesson": "word_chunk"}},
    )
    path = tmp_path / "old.ipynb"
    path.write_text(v3.writes_json(notebook))
    source = read_submission(path)
    assert source.lesson.id == "word_chunk"
    assert [(cell.label, cell.source) for cell in source.cells] == [("cell 2", REFERENCE)]


def test_a_notebook_of_an_unknown_version_is_a_broken_notebook(tmp_path):
    path = tmp_path / "future.ipynb"
    path.write_text(json.dumps({"nbformat": 99, "nbformat_minor": 0, "cells": [], "metadata": {}}))
    with pytest.raises(BrokenNotebookError, match="cannot be read as a notebook"):
        read_submission(path)


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("solve?", "solve?"),
        ("?solve", "?solve"),
        ("chunk??", "chunk??"),
        ("ChunkingPipeline.chunk_text?", "ChunkingPipeline.chunk_text?"),
        ("files = !ls", "files = !ls"),
        ("get_ipython().run_line_magic('load_ext', 'autoreload')", "get_ipython().run_line_ma"),
    ],
)
def test_help_assigned_shell_lines_and_exported_magics_are_skipped(line, shown):
    code = strip_magics(f"x = 1\n{line}\ny = 2", "cell 1")
    assert code.source == "x = 1\n\ny = 2"
    assert f"(such as `{shown}" in code.warnings[0].message


@pytest.mark.parametrize(
    "line", ["print('why?')", "x = a % b", "a != b", "# what?", "text = 'a?'", "ok = x?y"]
)
def test_python_that_looks_like_ipython_is_kept(line):
    assert strip_magics(f"{line}\n", "cell 1") == CellCode(f"{line}\n")


def test_a_skipped_line_that_is_a_block_s_body_becomes_pass():
    source = "for n in (1, 2):\n    %time f(n)\nif True:\n    x = 1\n    !ls\n    y = 2\n"
    code = strip_magics(source, "cell 1")
    assert code.source == "for n in (1, 2):\n    pass\nif True:\n    x = 1\n    pass\n    y = 2\n"
    compile(code.source, "cell", "exec")


def test_a_folder_with_two_files_of_one_lesson_names_the_one_left_out(tmp_path):
    folder = tmp_path / "jose"
    folder.mkdir()
    notebook_file(folder, "word_chunk.ipynb")
    (folder / "word_chunk.py").write_text(REFERENCE)
    (folder / "notes.py").write_text("TODO = 1\n")
    source = read_submission(folder)
    assert source.path.name == "word_chunk.py"
    assert [(w.kind, w.message) for w in source.warnings] == [
        (
            "file_left_out",
            "word_chunk.ipynb is not graded: word_chunk.py is graded for word_chunk, and one "
            "file per lesson is; hand in only the file you want graded",
        )
    ]


def test_a_second_file_defining_the_function_is_named_unless_the_graded_code_imports_it(
    tmp_path,
):
    folder = tmp_path / "kim"
    folder.mkdir()
    (folder / "word_chunk.py").write_text("from tools import solve\n")
    (folder / "tools.py").write_text(REFERENCE)  # a helper the graded file imports
    (folder / "solution.py").write_text(REFERENCE)  # another attempt, not imported
    source = read_submission(folder)
    assert source.path.name == "word_chunk.py"
    assert [w.message.split(":")[0] for w in source.warnings if w.kind == "file_left_out"] == [
        "solution.py is not graded"
    ]
