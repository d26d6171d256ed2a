"""Turns a path into submissions: finds them, reads them, tells their lesson."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chunklab.errors import (
    LessonNotFoundError,
    UnknownLessonError,
    UnreadableSubmissionError,
    UsageError,
)
from chunklab.lessons import Lesson, get_lesson, lesson_named_in
from chunklab.reading.notebook_file import read_notebook
from chunklab.reading.python_file import read_python
from chunklab.reading.source import CodeCell, SubmissionSource

SUBMISSION_SUFFIXES = (".py", ".ipynb")
# A submission larger than this is not a chunking exercise; refuse before reading it all.
MAX_SUBMISSION_BYTES = 5_000_000


@dataclass(frozen=True)
class SubmissionPath:
    """One submission to grade: a file, or a folder holding one student's files."""

    path: Path
    display: str


def find_submissions(paths: list[Path]) -> list[SubmissionPath]:
    """Each path as given, or for a folder each `.py`/`.ipynb` file and sub-folder in it."""
    found: list[SubmissionPath] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path} does not exist")
        if path.is_file():
            found.append(SubmissionPath(path, str(path)))
            continue
        for entry in sorted(path.iterdir()):
            if entry.name.startswith((".", "_")):
                continue
            if entry.is_dir() or entry.suffix in SUBMISSION_SUFFIXES:
                found.append(SubmissionPath(entry, str(entry)))
    return found


def submission_file(path: Path, lesson_id: str | None) -> Path:
    """The file to grade in a student's folder: the one named for the lesson, or the only one."""
    if not path.is_dir():
        return path
    files = sorted(
        p
        for p in path.rglob("*")
        if p.suffix in SUBMISSION_SUFFIXES and p.is_file() and ".ipynb_checkpoints" not in p.parts
    )
    if lesson_id is not None:
        named = [p for p in files if lesson_id in p.name]
        files = named or files
    if len(files) == 1:
        return files[0]
    if not files:
        raise UnreadableSubmissionError(
            f"the folder {path.name} holds no .py file or notebook to grade"
        )
    names = ", ".join(p.name for p in files[:5])
    raise UnreadableSubmissionError(
        f"the folder {path.name} holds several files ({names}); "
        "keep one, or name the one to grade after its lesson (e.g. char_chunk.py)"
    )


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_SUBMISSION_BYTES:
            raise UnreadableSubmissionError(
                f"{path.name} is {size:,} bytes; a submission must be under "
                f"{MAX_SUBMISSION_BYTES:,} bytes"
            )
        return path.read_bytes()
    except OSError as error:
        raise UnreadableSubmissionError(f"{path.name} cannot be opened: {error.strerror}") from None


def choose_lesson(file: Path, lesson_id: str | None, notebook_lesson: str | None) -> Lesson:
    """`--lesson` first, then the notebook's metadata, then the file name; never a guess."""
    for named in (lesson_id, notebook_lesson):
        if named is not None:
            try:
                return get_lesson(named)
            except UnknownLessonError as error:
                raise LessonNotFoundError(str(error)) from None
    lesson = lesson_named_in(file.name) or lesson_named_in(file.parent.name)
    if lesson is None:
        raise LessonNotFoundError(
            f"cannot tell which lesson {file.name} is for; name the file after its lesson "
            "(e.g. char_chunk.py) or grade it with --lesson"
        )
    return lesson


def read_submission(
    path: Path, lesson_id: str | None = None, display: str | None = None
) -> SubmissionSource:
    """Read one submission: its code cells and its lesson."""
    file = submission_file(path, lesson_id)
    raw = read_bytes(file)
    cells: tuple[CodeCell, ...]
    if file.suffix == ".ipynb":
        cells, notebook_lesson = read_notebook(file, raw)
        kind = "notebook"
    elif file.suffix == ".py":
        cells, notebook_lesson, kind = read_python(file, raw), None, "python"
    else:
        raise UnreadableSubmissionError(f"{file.name} is neither a .py file nor an .ipynb notebook")
    lesson = choose_lesson(file, lesson_id, notebook_lesson)
    return SubmissionSource(
        path=file, display=display or str(path), kind=kind, lesson=lesson, cells=cells
    )
