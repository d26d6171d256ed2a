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
from chunklab.lessons import LESSONS, Lesson, get_lesson, lesson_named_in
from chunklab.reading.notebook_file import read_notebook
from chunklab.reading.python_file import read_python
from chunklab.reading.source import CodeCell, SubmissionSource
from chunklab.reading.student import (
    helpers_cell,
    lessons_in,
    names_two_lessons,
    pick_file,
    regular_files,
    student_name,
)

SUBMISSION_SUFFIXES = (".py", ".ipynb")
# A submission larger than this is not a chunking exercise; refuse before reading it all.
MAX_SUBMISSION_BYTES = 5_000_000


@dataclass(frozen=True)
class SubmissionPath:
    """One submission to grade: a file, or a folder holding one student's files."""

    path: Path
    display: str
    # Whose work it is: the folder's name, or the file's name without its lesson id.
    student: str = ""
    # The lesson a student's folder was split by (one submission per lesson in it).
    lesson: str | None = None


def find_submissions(paths: list[Path], lesson_id: str | None = None) -> list[SubmissionPath]:
    """Each path as given, or for a folder each `.py`/`.ipynb` file and sub-folder in it."""
    found: list[SubmissionPath] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path} does not exist")
        if path.is_file():
            found.append(SubmissionPath(path, str(path), student_name(path)))
            continue
        for entry in sorted(path.iterdir()):
            if entry.name.startswith((".", "_")):
                continue
            if entry.is_dir():
                found += student_folder(entry, lesson_id)
            elif entry.suffix in SUBMISSION_SUFFIXES:
                found.append(SubmissionPath(entry, str(entry), student_name(entry)))
    return found


def student_folder(folder: Path, lesson_id: str | None) -> list[SubmissionPath]:
    """One submission per lesson a student's folder holds files for (only `lesson_id`'s if set)."""
    student = student_name(folder)
    lessons = [lesson_id] if lesson_id else list(lessons_in(folder))
    found = []
    for lesson in lessons:
        candidates = pick_file(folder, get_lesson(lesson))
        # A folder of several lessons is told apart by the file graded for each.
        display = str(candidates[0]) if candidates and len(lessons) > 1 else str(folder)
        found.append(SubmissionPath(folder, display, student, lesson))
    if lesson_id is None:
        # Read on its own, so its lesson is told (or found in conflict) as for any file.
        found += [
            SubmissionPath(path, str(path), student)
            for path in regular_files(folder)
            if names_two_lessons(path)
        ]
    return found or [SubmissionPath(folder, str(folder), student)]


def submission_file(path: Path, lesson_id: str | None) -> Path:
    """The file to grade in a student's folder: the only one, or the one that is the lesson's.

    Only regular files are considered, found without following symbolic links.
    """
    if not path.is_dir():
        return path
    files = pick_file(path, get_lesson(lesson_id) if lesson_id in LESSONS else None)
    if files and (len(files) == 1 or lesson_id in LESSONS):
        return files[0]
    if not files:
        raise UnreadableSubmissionError(
            f"the folder {path.name} holds no .py file or notebook to grade"
        )
    names = ", ".join(p.name for p in files[:5])
    raise UnreadableSubmissionError(
        f"the folder {path.name} holds several files ({names}) and none names its lesson; "
        "name the one to grade after its lesson (e.g. char_chunk.py), or grade with --lesson"
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
    if path.is_dir():
        cells = helpers_cell(path, file) + cells
    return SubmissionSource(
        path=file,
        display=display or str(path),
        kind=kind,
        lesson=lesson,
        cells=cells,
        student=student_name(path),
    )
