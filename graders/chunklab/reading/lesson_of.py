"""Which lesson a file is for: decided here, the same way on every route.

`chunklab grade` (in one process, in several, on Dask), `chunklab check`, the
Gradescope autograder, the splitting of a student's folder by lesson and the
early grouping of a class by lesson all ask `lesson_of`. The rules, in order:

1. A lesson given decides, whatever the file says: `--lesson`, the LESSON of
   `chunklab check LESSON FILE`, the autograder's lesson, or the lesson a
   student's folder was split by. An id that is no lesson's is `unknown_lesson`.
2. A notebook's metadata (`metadata.chunklab.lesson`) names its lesson. An id
   that is no lesson's is `unknown_lesson`; a file name that names another
   lesson is `lesson_conflict`. Neither is guessed.
3. Else the file's name, when exactly one lesson id appears in it
   (`alice_char_chunk.py`, `char_chunk-v2.ipynb`).
4. Else the name of the folder the file is in, by the same test
   (`char_chunk/homework.py`). Not when telling a student's files apart
   (`by_folder=False`): there the folder is the student's, and each file
   says for itself which lesson it is.
5. Else the lesson cannot be told: `unknown_lesson`, never a guess.

Before a submission is read its metadata is not known: the grouping of a
class by lesson (the work pool, Dask's task groups) and the report of a
submission that cannot be read take `likely_lesson`, the same rules on what
the path shows, which never raises. The lesson is still decided when each
submission is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chunklab.errors import (
    LessonConflictError,
    LessonNotFoundError,
    SubmissionError,
    UnknownLessonError,
)
from chunklab.lessons import Lesson, get_lesson, lesson_named_in
from chunklab.reading.safe_file import is_folder
from chunklab.reading.source import NOTEBOOK_METADATA_KEY


def lesson_of(
    file: Path,
    given: str | None = None,
    metadata: str | None = None,
    *,
    by_folder: bool = True,
) -> Lesson:
    """The lesson of `file` by the rules above; `metadata` is what its notebook metadata names.

    Raises `LessonNotFoundError` or `LessonConflictError` (a `SubmissionError`,
    reported with the submission) when the lesson cannot be told.
    """
    if given is not None:
        return known(given)
    by_name = lesson_named_in(file.name)
    if metadata is not None:
        lesson = known(metadata)
        if by_name is not None and by_name != lesson:
            raise LessonConflictError(
                f"{file.name} is named for the lesson {by_name.id}, but its notebook metadata "
                f"says {lesson.id}; rename the file or hand in the notebook of {by_name.id} "
                "(an instructor can choose with --lesson)"
            )
        return lesson
    found = by_name or (lesson_named_in(file.parent.name) if by_folder else None)
    if found is None:
        raise LessonNotFoundError(
            f"cannot tell which lesson {file.name} is for; name the file after its lesson "
            "(e.g. char_chunk.py) or grade it with --lesson"
        )
    return found


def known(lesson_id: str) -> Lesson:
    try:
        return get_lesson(lesson_id)
    except UnknownLessonError as error:
        raise LessonNotFoundError(str(error)) from None


def likely_lesson(path: Path, given: str | None = None) -> Lesson | None:
    """The lesson a submission is most likely for before it is read; None when none is told.

    A student's folder is told by its own name, the folder its files are in.
    """
    try:
        return lesson_of(path, given, by_folder=not is_folder(path))
    except SubmissionError:
        return None


def metadata_lesson(data: Any) -> str | None:
    """What a notebook's metadata names as its lesson (any text; rule 2 judges it), if anything."""
    metadata = data.get("metadata") if isinstance(data, dict) else None
    entry = metadata.get(NOTEBOOK_METADATA_KEY) if isinstance(metadata, dict) else None
    lesson = entry.get("lesson") if isinstance(entry, dict) else None
    return lesson if isinstance(lesson, str) else None
