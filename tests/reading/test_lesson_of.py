"""One decider of a file's lesson: every route (grade, check, a student's folder, the work
pool's and Dask's early guesses, a given lesson as the autograder has) tells the same lesson."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunklab.cluster.on_dask import task_groups
from chunklab.commands.check import lesson_to_check
from chunklab.errors import LessonConflictError, LessonNotFoundError, UsageError
from chunklab.pipeline.pool import WorkPool
from chunklab.reading.lesson_of import lesson_of, likely_lesson
from chunklab.reading.read import SubmissionPath, find_submissions, read_found, read_submission

CODE = "def chunk(text, size, overlap):\n    return []\n"


def notebook(path: Path, lesson: str) -> Path:
    cell = {"cell_type": "code", "metadata": {}, "source": CODE, "outputs": []}
    data = {"cells": [cell], "metadata": {"chunklab": {"lesson": lesson}}, "nbformat": 4}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def python(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CODE)
    return path


@pytest.fixture
def class_files(tmp_path: Path) -> dict[Path, tuple[str, str]]:
    """Each file, its lesson, and the lesson its path alone suggests ("" for none)."""
    return {
        python(tmp_path / "alice_char_chunk.py"): ("char_chunk", "char_chunk"),
        python(tmp_path / "word_chunk" / "homework.py"): ("word_chunk", "word_chunk"),
        notebook(tmp_path / "anything.ipynb", "chunking_pipeline"): ("chunking_pipeline", ""),
        notebook(tmp_path / "bob_word_chunk.ipynb", "word_chunk"): ("word_chunk", "word_chunk"),
        # The metadata, seen only once the file is read, beats the folder's name.
        notebook(tmp_path / "char_chunk" / "m.ipynb", "word_chunk"): ("word_chunk", "char_chunk"),
    }


def test_grade_and_check_tell_the_same_lesson_and_a_given_one_decides(class_files):
    for path, (lesson, guess) in class_files.items():
        assert read_submission(path).lesson.id == lesson, path
        assert lesson_to_check(path).id == lesson, path
        likely = likely_lesson(path)
        assert (likely.id if likely else "") == guess, path
        # The lesson given (--lesson, `check LESSON`, the autograder's) decides alone.
        assert read_submission(path, "char_chunk").lesson.id == "char_chunk"
        assert likely_lesson(path, "char_chunk").id == "char_chunk"


def test_the_pool_and_dask_group_by_the_same_guess(class_files):
    items = [(n, SubmissionPath(path, str(path))) for n, path in enumerate(class_files)]
    guesses = [guess for _, guess in class_files.values()]
    pool = WorkPool(items, None)
    assert {n: key for key, queue in pool.pending.items() for n in queue} == dict(
        enumerate(guesses)
    )
    [group] = task_groups(items, len(items))
    assert [guesses[n] for n, _ in group] == sorted(guesses)


def test_a_students_folder_is_split_by_the_lesson_each_file_tells(tmp_path):
    folder = tmp_path / "class" / "carol"
    python(folder / "carol_char_chunk.py")
    notebook(folder / "draft.ipynb", "word_chunk")
    python(folder / "helpers.py")
    found = find_submissions([tmp_path / "class"])
    assert [item.lesson for item in found] == ["char_chunk", "word_chunk"]
    assert [read_found(item, None, 10**6).lesson.id for item in found] == [
        "char_chunk",
        "word_chunk",
    ]


def test_a_conflict_is_refused_alike_by_grade_check_and_a_students_folder(tmp_path):
    path = notebook(tmp_path / "dave" / "dave_char_chunk.ipynb", "word_chunk")
    with pytest.raises(LessonConflictError) as graded:
        read_submission(path)
    assert str(graded.value) == (
        "dave_char_chunk.ipynb is named for the lesson char_chunk, but its notebook metadata "
        "says word_chunk; rename the file or hand in the notebook of char_chunk "
        "(an instructor can choose with --lesson)"
    )
    with pytest.raises(UsageError) as checked:
        lesson_to_check(path)
    assert str(checked.value) == (
        f"{graded.value} (or give the lesson first: chunklab check LESSON {path})"
    )
    [found] = find_submissions([tmp_path])
    assert (found.path, found.lesson) == (path, None)  # read on its own, to be reported


def test_a_notebook_naming_no_lesson_is_unknown_on_every_route(tmp_path):
    path = notebook(tmp_path / "erin_char_chunk.ipynb", "char-chunk")
    with pytest.raises(LessonNotFoundError, match="there is no lesson 'char-chunk'"):
        read_submission(path)
    with pytest.raises(UsageError, match="cannot tell which lesson erin_char_chunk.ipynb is for"):
        lesson_to_check(path)
    assert find_submissions([tmp_path])[0].lesson is None
    assert likely_lesson(path).id == "char_chunk"  # before reading, only the name is seen


def test_a_lesson_that_cannot_be_told_is_never_guessed(tmp_path):
    path = python(tmp_path / "homework.py")
    with pytest.raises(LessonNotFoundError, match="name the file after its lesson"):
        lesson_of(path)
    assert likely_lesson(path) is None
    # Among a student's files the folder is the student's, not the lesson's.
    inside = python(tmp_path / "char_chunk_frank" / "solution.py")
    assert lesson_of(inside).id == "char_chunk"
    with pytest.raises(LessonNotFoundError):
        lesson_of(inside, by_folder=False)
    assert likely_lesson(inside.parent).id == "char_chunk"
    assert likely_lesson(tmp_path / "char_chunk_frank" / "..") is None
