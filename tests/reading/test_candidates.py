"""The look into a student's files that chooses the one graded: cheap, bounded, never raising."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunklab.reading import candidates
from chunklab.reading.candidates import FolderLook, defined_in, look_at
from chunklab.reading.read import read_submission

CHUNK = "def chunk(text, size, overlap):\n    return [text]\n"
# Inputs that make Python's parser recurse or give up on memory at a few hundred KB.
DEEP_SUM = "x = " + "1+" * 100_000 + "1\n"
DEEP_MINUS = "x = " + "-" * 100_000 + "1\n"


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ("def chunk(text):\n    pass\n", {"chunk"}),
        ("async def solve(text):\n    pass\n", {"solve"}),
        ("class ChunkingPipeline:\n    pass\n", {"ChunkingPipeline"}),
        ("chunk = make()\n", {"chunk"}),
        ("chunk: Callable = make()\n", {"chunk"}),
        ("chunk == 1\n", set()),
        ("def chunker(text):\n    pass\n", set()),
        ("if True:\n    def chunk(text):\n        pass\n", set()),
        (DEEP_SUM + "def solve(t, s, o):\n    return []\n", {"solve"}),
    ],
)
def test_top_level_definitions_are_found_by_their_lines(code, found):
    assert defined_in([code]) == frozenset(found)


@pytest.mark.parametrize("hostile", [DEEP_SUM, DEEP_MINUS])
def test_code_that_breaks_a_parser_is_looked_at_without_one(tmp_path, hostile):
    (tmp_path / "notes.py").write_text(hostile)
    assert look_at(tmp_path / "notes.py", 1 << 20) == candidates.FileLook(tmp_path / "notes.py")


def test_a_notebook_that_breaks_the_json_reader_is_skipped_with_the_reason(tmp_path):
    (tmp_path / "notes.ipynb").write_text("[" * 100_000)
    look = look_at(tmp_path / "notes.ipynb", 1 << 20)
    assert look.metadata_lesson is None and look.defined == frozenset()
    assert look.skipped is not None and look.skipped.kind == "file_skipped"
    assert look.skipped.message == (
        "notes.ipynb was not looked into to choose the file to grade: notes.ipynb is not a "
        "valid notebook: its JSON is nested too deeply; open it in Jupyter and save it again"
    )


def test_a_file_larger_than_a_submission_is_never_read_past_the_limit(tmp_path):
    (tmp_path / "big.py").write_text(CHUNK + "#" * 2_000)
    look = look_at(tmp_path / "big.py", 1_000)
    assert look.defined == frozenset()
    assert look.skipped is not None
    assert look.skipped.message == (
        "big.py was not looked into to choose the file to grade: it is larger than 1,000 "
        "bytes, more than a submission may hold (the grader's --max-submission-kb)"
    )


def test_reading_a_folder_looks_at_each_file_once_and_reports_what_it_skipped(
    tmp_path, monkeypatch
):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "char_chunk.py").write_text(CHUNK)
    (folder / "char_chunk_notes.py").write_text("#" * 5_000)
    (folder / "char_chunk_draft.py").write_text("chunk = None\n")
    (folder / "notes.ipynb").write_text(json.dumps({"cells": [], "metadata": {}}))
    looked: list[str] = []
    real_look = candidates.look_at

    def counted(path: Path, limit: int, folder: Any = None) -> candidates.FileLook:
        looked.append(path.name)
        return real_look(path, limit, folder)

    monkeypatch.setattr(candidates, "look_at", counted)
    source = read_submission(folder, "char_chunk", limit=4_000)
    assert source.path.name == "char_chunk.py"
    assert sorted(looked) == sorted(set(looked))  # no file twice
    assert set(looked) == {
        "char_chunk.py",
        "char_chunk_draft.py",
        "char_chunk_notes.py",
        "notes.ipynb",
    }
    assert [(w.kind, w.message.split(":")[0]) for w in source.warnings] == [
        ("file_skipped", "char_chunk_notes.py was not looked into to choose the file to grade"),
        # A draft that defines the lesson's function too: named, since it is not graded.
        ("file_left_out", "char_chunk_draft.py is not graded"),
    ]


def test_a_folder_look_keeps_each_files_look(tmp_path):
    (tmp_path / "a.py").write_text(CHUNK)
    look = FolderLook(1_000)
    assert look.at(tmp_path / "a.py") is look.at(tmp_path / "a.py")
    assert look.warnings() == ()


def test_a_folders_looks_together_read_at_most_a_few_of_the_largest_files(tmp_path, monkeypatch):
    monkeypatch.setattr(candidates, "NOTEBOOK_OUTPUTS_BYTES", 0)
    monkeypatch.setattr(candidates, "MOST_FILES_LOOKED_INTO", 2)
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(CHUNK + "#" * 850)  # 900 bytes
    look = FolderLook(1_000)
    looks = [look.at(tmp_path / name) for name in ("a.py", "b.py", "c.py")]
    assert [each.defined for each in looks] == [frozenset({"chunk"})] * 2 + [frozenset()]
    assert [w.message for w in look.warnings()] == [
        "c.py was not looked into to choose the file to grade: the files looked into "
        "before it already hold 1,800 bytes"
    ]
