"""Students, not just files: whose work a report is, folders of several lessons, helper modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunklab.errors import SubmissionTooLargeError, UnsafePathError
from chunklab.lessons import LESSONS
from chunklab.reading.read import find_submissions, read_submission
from chunklab.reading.student import pick_file, regular_files, student_name

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"


def solution(lesson: str) -> str:
    return (SOLUTIONS / f"{lesson}.py").read_text()


@pytest.mark.parametrize(
    ("name", "student"),
    [
        ("alice_char_chunk.py", "alice"),
        ("char_chunk_bob.ipynb", "bob"),
        ("Carol Smith - word_chunk.py", "Carol Smith"),
        ("dave.chunking_pipeline.py", "dave"),
        ("char_chunk.py", "char_chunk.py"),
        ("erin.py", "erin"),
    ],
)
def test_a_files_student_is_its_name_without_lesson_id_and_extension(tmp_path, name, student):
    path = tmp_path / name
    path.write_text("")
    assert student_name(path) == student


def test_a_folders_student_is_its_name(tmp_path):
    (tmp_path / "frank_char_chunk").mkdir()
    assert student_name(tmp_path / "frank_char_chunk") == "frank_char_chunk"


def test_a_student_folder_of_several_lessons_is_one_submission_per_lesson(tmp_path):
    alice = tmp_path / "alice"
    alice.mkdir()
    for lesson in ("word_chunk", "char_chunk"):
        (alice / f"{lesson}.py").write_text(solution(lesson))
    (alice / "notes.py").write_text("x = 1\n")
    (tmp_path / "bob_char_chunk.py").write_text(solution("char_chunk"))
    found = find_submissions([tmp_path])
    assert [(f.student, f.lesson, Path(f.display).name) for f in found] == [
        ("alice", "char_chunk", "char_chunk.py"),
        ("alice", "word_chunk", "word_chunk.py"),
        ("bob", None, "bob_char_chunk.py"),
    ]
    assert [read_submission(f.path, f.lesson).path.name for f in found[:2]] == [
        "char_chunk.py",
        "word_chunk.py",
    ]
    only = find_submissions([tmp_path], "word_chunk")
    assert [(f.student, f.lesson) for f in only[:1]] == [("alice", "word_chunk")]


def test_a_notebook_is_placed_by_its_metadata_when_its_name_says_nothing(tmp_path):
    notebook = {
        "cells": [],
        "metadata": {"chunklab": {"lesson": "word_chunk"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "homework.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "char_chunk.py").write_text(solution("char_chunk"))
    assert [p.name for p in pick_file(tmp_path, LESSONS["word_chunk"])] == ["homework.ipynb"]
    assert [p.name for p in pick_file(tmp_path, LESSONS["char_chunk"])] == ["char_chunk.py"]


def test_the_lessons_file_is_found_whatever_it_is_named(tmp_path):
    (tmp_path / "helpers.py").write_text("def split(t):\n    return t.split()\n")
    (tmp_path / "my_work.py").write_text(solution("word_chunk"))
    assert [p.name for p in pick_file(tmp_path, LESSONS["word_chunk"])][:1] == ["my_work.py"]
    # Both named after the lesson: the one defining the function, a .py before a notebook.
    (tmp_path / "word_chunk.ipynb").write_text(json.dumps({"cells": []}))
    (tmp_path / "word_chunk.py").write_text(solution("word_chunk"))
    assert [p.name for p in pick_file(tmp_path, LESSONS["word_chunk"])] == [
        "word_chunk.py",
        "word_chunk.ipynb",
    ]


def test_links_in_a_folder_are_never_followed(chunklab, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "char_chunk.py").write_text(solution("char_chunk"))
    folder = tmp_path / "class" / "mallory"
    folder.mkdir(parents=True)
    (folder / "char_chunk.py").symlink_to(outside / "char_chunk.py")
    (folder / "word_chunk.py").write_text(solution("word_chunk"))
    # A linked file inside a student's folder makes the folder unsafe: it is one
    # submission, reported, and nothing in it (the link least of all) is graded.
    with pytest.raises(UnsafePathError):
        regular_files(folder)
    result = chunklab("grade", "--jobs", "1", tmp_path / "class")
    assert [(r["student"], r["status"], r["score"]) for r in result.reports] == [
        ("mallory", "error", 0.0)
    ]
    assert [e["kind"] for e in result.reports[0]["errors"]] == ["unsafe_path"]


def test_a_linked_folder_inside_a_student_folder_is_not_entered(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "char_chunk.py").write_text(solution("char_chunk"))
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "linked").symlink_to(outside)
    (folder / "word_chunk.py").write_text(solution("word_chunk"))
    assert [p.name for p in regular_files(folder)] == ["word_chunk.py"]
    assert [f.lesson for f in find_submissions([tmp_path]) if f.student == "mallory"] == [
        "word_chunk"
    ]


def test_helper_modules_travel_with_the_lesson_file(chunklab, tmp_path):
    folder = tmp_path / "class" / "grace"
    folder.mkdir(parents=True)
    (folder / "words.py").write_text("def split(text):\n    return text.split()\n")
    (folder / "word_chunk.py").write_text(
        "from words import split\n\n"
        "def solve(text, size, overlap):\n"
        "    words = split(text)\n"
        "    chunks = []\n"
        "    for start in range(0, len(words), size - overlap):\n"
        "        chunks.append(' '.join(words[start:start + size]))\n"
        "        if start + size >= len(words):\n"
        "            break\n"
        "    return chunks\n"
    )
    (folder / "char_chunk.py").write_text("import words\n" + solution("char_chunk"))
    result = chunklab("grade", "--jobs", "1", tmp_path / "class")
    assert [(r["student"], r["lesson"], r["status"]) for r in result.reports] == [
        ("grace", "char_chunk", "graded"),
        ("grace", "word_chunk", "graded"),
    ]
    for report in result.reports:
        assert report["score"] == report["max_score"] > 0, report["errors"]
        assert report["warnings"] == []


def test_a_notebook_naming_two_lessons_is_left_for_the_reader_to_judge(tmp_path):
    folder = tmp_path / "ivy"
    folder.mkdir()
    notebook = {"cells": [], "metadata": {"chunklab": {"lesson": "word_chunk"}}}
    (folder / "char_chunk.ipynb").write_text(json.dumps(notebook))
    (folder / "word_chunk.py").write_text(solution("word_chunk"))
    found = find_submissions([tmp_path])
    assert [(f.path.name, f.student, f.lesson) for f in found] == [
        ("ivy", "ivy", "word_chunk"),
        ("char_chunk.ipynb", "ivy", None),
    ]


def test_helper_modules_count_toward_the_size_limit_with_the_lesson_file(tmp_path):
    folder = tmp_path / "hal"
    folder.mkdir()
    code = "def chunk(text, size, overlap):\n    return [text]\n"  # 50 bytes
    (folder / "char_chunk.py").write_text(code)
    (folder / "small.py").write_text("#" * 400)
    source = read_submission(folder, limit=1_000)
    assert source.local_modules == ("small",)
    (folder / "big.py").write_text("#" * 600)
    with pytest.raises(SubmissionTooLargeError) as raised:
        read_submission(folder, limit=1_000)
    assert str(raised.value) == (
        "the code in char_chunk.py and the 2 helper module(s) beside it (big.py (600 bytes), "
        "small.py (400 bytes)) hold more than 1,000 bytes together, the most a submission's "
        "code, its helper modules included, may hold (the grader's --max-submission-kb); "
        "hand in only your solution and the modules it imports"
    )
    assert read_submission(folder, limit=1_050).local_modules == ("big", "small")


def test_a_folder_whose_files_all_name_one_lesson_is_read_without_one(tmp_path):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "char_chunk.py").write_text(solution("char_chunk"))
    (folder / "char_chunk_notes.py").write_text("notes = 'chunk(text, size, overlap)'\n")
    source = read_submission(folder)
    assert (source.path.name, source.lesson.id) == ("char_chunk.py", "char_chunk")


USES_TOOLS = (
    "from char_chunk_tools import words\n\n"
    "def solve(text, size, overlap):\n"
    "    found = words(text)\n"
    "    step = size - overlap\n"
    "    chunks = []\n"
    "    for start in range(0, len(found), step):\n"
    "        chunks.append(' '.join(found[start:start + size]))\n"
    "        if start + size >= len(found):\n"
    "            break\n"
    "    return chunks\n"
)
TOOLS_LEFT_BEHIND = (
    "char_chunk_tools.py is named for the lesson char_chunk, so it is taken for that "
    "lesson's file and not handed to the code of word_chunk.py as a module; `import "
    "char_chunk_tools` fails when graded: rename it (to a name without a lesson id, such "
    "as tools.py) and import it by that name"
)


def test_a_module_named_for_a_lesson_that_the_code_imports_is_named_in_a_warning(tmp_path):
    folder = tmp_path / "quinn"
    folder.mkdir()
    (folder / "word_chunk.py").write_text(USES_TOOLS)
    (folder / "char_chunk_tools.py").write_text("def words(text):\n    return text.split()\n")
    source = read_submission(folder, "word_chunk")
    assert source.local_modules == ()
    assert [(w.kind, w.message) for w in source.warnings] == [
        ("helper_skipped", TOOLS_LEFT_BEHIND)
    ]
    # Another lesson's file that the code does not import is no helper, and no warning.
    (folder / "char_chunk_tools.py").unlink()
    (folder / "char_chunk.py").write_text(solution("char_chunk"))
    assert read_submission(folder, "word_chunk").warnings == ()


def test_the_import_of_a_module_left_behind_is_explained_not_called_outside_the_library(
    chunklab, tmp_path
):
    quinn = tmp_path / "class" / "quinn"
    quinn.mkdir(parents=True)
    (quinn / "word_chunk.py").write_text(USES_TOOLS)
    (quinn / "char_chunk_tools.py").write_text("def words(text):\n    return text.split()\n")
    pat = tmp_path / "class" / "pat"
    (pat / "chunkutil").mkdir(parents=True)
    (pat / "chunkutil" / "__init__.py").write_text("def words(text):\n    return text.split()\n")
    (pat / "word_chunk.py").write_text(USES_TOOLS.replace("char_chunk_tools", "chunkutil"))
    result = chunklab("grade", "--jobs", "1", "--lesson", "word_chunk", tmp_path / "class")
    errors = {r["student"]: r["errors"] for r in result.reports}
    assert errors["quinn"] == [{"kind": "helper_left_behind", "message": TOOLS_LEFT_BEHIND}]
    [pat_error] = errors["pat"]
    assert pat_error["kind"] == "helper_left_behind"
    assert pat_error["message"].startswith("chunkutil/ is a package (a folder of modules)")
    assert "standard library" not in str(errors)


def test_a_package_beside_the_lesson_file_is_said_not_to_travel_with_it(tmp_path):
    folder = tmp_path / "pat"
    (folder / "chunkutil").mkdir(parents=True)
    (folder / "chunkutil" / "__init__.py").write_text("from chunkutil.core import cut\n")
    (folder / "chunkutil" / "core.py").write_text("def cut(text):\n    return [text]\n")
    (folder / "char_chunk.py").write_text(solution("char_chunk"))
    source = read_submission(folder)
    assert source.local_modules == ()
    assert [(w.kind, w.message) for w in source.warnings] == [
        (
            "helper_skipped",
            "chunkutil/ is a package (a folder of modules); only single .py files beside "
            "char_chunk.py are handed to your code, so `import chunkutil` fails when graded: "
            "put what your solution needs from it into chunkutil.py beside char_chunk.py",
        )
    ]
