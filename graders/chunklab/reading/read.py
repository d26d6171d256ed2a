"""Turns a path into submissions: finds them, reads them, tells their lesson (`lesson_of`)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from chunklab.errors import (
    ReadingFailedError,
    SubmissionError,
    SubmissionTooLargeError,
    UnreadableSubmissionError,
    UsageError,
)
from chunklab.lessons import LESSONS, Lesson, get_lesson
from chunklab.reading.candidates import DEFAULT_MAX_SUBMISSION_KB, FolderLook
from chunklab.reading.folder import OpenFolder
from chunklab.reading.helpers import Helpers, imports, read_helpers
from chunklab.reading.lesson_of import lesson_of
from chunklab.reading.notebook_file import CLEAR_OUTPUTS, NOTEBOOK_OUTPUTS_BYTES, read_notebook
from chunklab.reading.python_file import read_python
from chunklab.reading.safe_file import is_folder, mode_of, read_regular_file, unsafe
from chunklab.reading.source import CodeCell, SubmissionSource
from chunklab.reading.student import (
    lessons_in,
    names_two_lessons,
    pick_file,
    regular_files,
    student_name,
)
from chunklab.scoring.report import Problem

# The kind of a warning naming a file of a student's folder that another file of the same
# lesson was graded in place of.
LEFT_OUT = "file_left_out"

SUBMISSION_SUFFIXES = (".py", ".ipynb")
# Entries of a class folder that tools leave behind: never a submission, never warned of.
NEVER_SUBMISSIONS = (".git", ".ipynb_checkpoints", "__pycache__")


@dataclass(frozen=True)
class SubmissionPath:
    """One submission to grade: a file, or a folder holding one student's files."""

    path: Path
    display: str
    # Whose work it is: the folder's name, or the file's name without its lesson id.
    student: str = ""
    # The lesson a student's folder was split by (one submission per lesson in it).
    lesson: str | None = None

    @property
    def resolved(self) -> str:
        """Where the submission really is (its folder resolved, itself never followed)."""
        if not self.path.name:
            return os.path.realpath(self.path)
        return os.path.join(os.path.realpath(self.path.parent), self.path.name)


def find_submissions(
    paths: list[Path],
    lesson_id: str | None = None,
    limit: int = DEFAULT_MAX_SUBMISSION_KB * 1024,
) -> list[SubmissionPath]:
    """Each path as given, or for a folder each `.py`/`.ipynb` file and sub-folder in it.

    A path given here is the instructor's choice and is followed if it is a link;
    nothing found inside a folder is: links there are listed, to be reported.
    A student's sub-folder is one submission per lesson it holds files for; only
    files within the size limit `limit` are looked into to tell them apart.
    """
    found: list[SubmissionPath] = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise UsageError(f"{path} does not exist") from None
        except OSError as error:
            raise UsageError(f"{path} cannot be read: {error.strerror}") from None
        if not stat.S_ISDIR(mode):
            real = Path(os.path.realpath(path)) if os.path.islink(path) else path
            found.append(SubmissionPath(real, str(path), student_name(path)))
            continue
        for entry in folder_submissions(path):
            if is_folder(entry):
                found += student_folder(entry, lesson_id, limit)
            else:  # a file, or a link or special file to be reported as unsafe
                found.append(SubmissionPath(entry, str(entry), student_name(entry)))
    return found


def folder_submissions(folder: Path) -> list[Path]:
    """The entries of a class folder that are (or pretend to be) submissions, sorted."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        raise UsageError(f"{folder} cannot be read: {error.strerror}") from None
    found = []
    for entry in entries:
        path = folder / entry.name
        # A link to a folder stands where a student's folder would: it is reported, not skipped.
        if looks_like_submission(entry) and not entry.name.startswith("."):
            found.append(path)
    return found


def hidden_submissions(folder: Path) -> list[Path]:
    """The dot-entries of a class folder that look like submissions: skipped, to be warned of.

    A name starting with `.` is hidden from a person listing the folder; it is
    not graded, and saying so keeps a student's work from vanishing unseen.
    """
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    return [
        folder / entry.name
        for entry in entries
        if entry.name.startswith(".")
        and entry.name not in NEVER_SUBMISSIONS
        and looks_like_submission(entry)
    ]


def looks_like_submission(entry: os.DirEntry) -> bool:
    if entry.name in NEVER_SUBMISSIONS:
        return False
    return entry.is_dir() or Path(entry.name).suffix in SUBMISSION_SUFFIXES


def student_folder(folder: Path, lesson_id: str | None, limit: int) -> list[SubmissionPath]:
    """One submission per lesson a student's folder holds files for (only `lesson_id`'s if set)."""
    student = student_name(folder)
    whole = [SubmissionPath(folder, str(folder), student)]
    try:
        with OpenFolder(folder) as opened:
            look = FolderLook(limit, opened)
            lessons = [lesson_id] if lesson_id else list(lessons_in(opened, look))
            found = []
            for lesson in lessons:
                # A folder of several lessons is told apart by the file graded for each.
                candidates = pick_file(opened, get_lesson(lesson), look) if lessons[1:] else []
                display = str(candidates[0]) if candidates else str(folder)
                found.append(SubmissionPath(folder, display, student, lesson))
            if lesson_id is None:
                # Read on its own, so its lesson is told (or found in conflict) as for any file.
                found += [
                    SubmissionPath(path, str(path), student)
                    for path in regular_files(opened)
                    if names_two_lessons(path, look)
                ]
    except Exception:  # one student's files never stop the finding of the rest
        # A folder that cannot be listed safely (a link inside, too many files) or looked
        # into is one submission, whose reading reports why.
        return whole
    return found or whole


def folder_file(
    folder: OpenFolder, lesson_id: str | None, look: FolderLook, shown: str = ""
) -> Path:
    """The file to grade in a student's folder: the only one, or the one that is the lesson's.

    Only regular files are considered, found without following symbolic links; a
    link or special file that looks like a submission makes the folder unsafe.
    `shown` is what the folder is to a person (for an LMS download, what was handed in).
    """
    lesson = LESSONS.get(lesson_id) if lesson_id else only_lesson(folder, look)
    files = pick_file(folder, lesson, look)
    if files and (len(files) == 1 or lesson is not None):
        return files[0]
    if not files:
        raise UnreadableSubmissionError(
            f"there is no .py file or notebook to grade in {shown or 'the folder ' + folder.name}"
        )
    names = ", ".join(p.name for p in files[:5])
    raise UnreadableSubmissionError(
        f"the folder {folder.name} holds several files ({names}) and none names its lesson; "
        "name the one to grade after its lesson (e.g. char_chunk.py), or grade with --lesson"
    )


def left_out(
    folder: OpenFolder, graded: Path, lesson: Lesson, look: FolderLook, code: str
) -> tuple[Problem, ...]:
    """A warning for each other file of the folder that defines the lesson's function or
    class too, and that the graded `code` does not import: only one is graded. (Notes
    named after the lesson are not submissions, nor is a helper module.)"""
    others = [
        path
        for path in regular_files(folder)
        if path != graded
        and path.suffix in SUBMISSION_SUFFIXES
        and lesson.entry_point in look.at(path).defined
        and not imports(code, path.stem)
    ]
    return tuple(
        Problem(
            LEFT_OUT,
            f"{path.name} is not graded: {graded.name} is graded for {lesson.id}, and one "
            "file per lesson is; hand in only the file you want graded",
        )
        for path in others
    )


def only_lesson(folder: OpenFolder, look: FolderLook) -> Lesson | None:
    """The lesson of a folder whose files name one lesson only (by name or notebook metadata)."""
    named = lessons_in(folder, look)
    return LESSONS[next(iter(named))] if len(named) == 1 else None


@dataclass(frozen=True)
class ReadCode:
    """A submission file's code, before its lesson is decided."""

    kind: str  # "python" or "notebook"
    cells: tuple[CodeCell, ...]
    notebook_lesson: str | None = None
    warnings: tuple[Problem, ...] = ()
    # The size of the code in bytes: what the size limit counts.
    code_bytes: int = 0


def read_code(file: Path, limit: int, folder: OpenFolder | None = None) -> ReadCode:
    """The code cells of a `.py` file or a notebook; its code may hold at most `limit` bytes.

    A file in a student's folder is read through the folder's handle (`folder`).
    """
    read = folder.read if folder is not None else read_regular_file
    if file.suffix == ".py":
        raw = read(file, limit)
        if len(raw) > limit:
            raise too_large(file, f"more than {limit:,}", limit)
        return ReadCode("python", read_python(file, raw), code_bytes=len(raw))
    if file.suffix != ".ipynb":
        raise UnreadableSubmissionError(f"{file.name} is neither a .py file nor an .ipynb notebook")
    raw = read(file, limit + NOTEBOOK_OUTPUTS_BYTES)
    if len(raw) > limit + NOTEBOOK_OUTPUTS_BYTES:
        raise SubmissionTooLargeError(
            f"{file.name} is larger than {limit + NOTEBOOK_OUTPUTS_BYTES:,} bytes with its "
            f"outputs; {CLEAR_OUTPUTS}"
        )
    notebook = read_notebook(file, raw)
    if notebook.code_bytes > limit:
        raise too_large(file, f"{notebook.code_bytes:,}", limit)
    return ReadCode(
        "notebook", notebook.cells, notebook.lesson, notebook.warnings, notebook.code_bytes
    )


def too_large(file: Path, size: str, limit: int) -> SubmissionTooLargeError:
    return SubmissionTooLargeError(
        f"the code in {file.name} is {size} bytes; a submission's code may hold at most "
        f"{limit:,} bytes (the grader's --max-submission-kb); hand in only your solution"
    )


def read_submission(
    path: Path,
    lesson_id: str | None = None,
    display: str | None = None,
    limit: int = DEFAULT_MAX_SUBMISSION_KB * 1024,
) -> SubmissionSource:
    """Read one submission: its code cells and its lesson.

    Its code, helper modules included, holds at most `limit` bytes. Whatever
    goes wrong while reading it is this submission's `SubmissionError`, never
    the run's: one student's files never cost another a grade.
    """
    try:
        return read_checked(path, lesson_id, display, limit)
    except SubmissionError:
        raise
    except (RecursionError, MemoryError) as error:
        raise UnreadableSubmissionError(
            f"{path.name} could not be read: its content is nested too deeply or is too "
            f"large to read ({type(error).__name__}); hand in plain code"
        ) from None
    except Exception as error:  # the boundary between one submission and the run
        raise ReadingFailedError(
            f"the grader failed to read {path.name} ({type(error).__name__}: {error}); "
            "tell your instructor, and hand in a plain .py file or a notebook saved by Jupyter"
        ) from error


def read_found(item: SubmissionPath, lesson_id: str | None, limit: int) -> SubmissionSource:
    """A submission as it was found: read as its own lesson (if split by one), or `lesson_id`.

    Grading here and sending to a cluster both read through this, so a
    submission is read the same way, with the same limits and errors, wherever
    it is graded.
    """
    source = read_submission(item.path, item.lesson or lesson_id, item.display, limit)
    if item.student:  # whose work it is was told when it was found (a folder's name)
        source = replace(source, student=item.student)
    return source


def read_checked(
    path: Path, lesson_id: str | None, display: str | None, limit: int
) -> SubmissionSource:
    mode = mode_of(path)
    if stat.S_ISDIR(mode):
        # Opened once: a folder swapped for a link since it was found is refused here.
        with OpenFolder(path) as folder:
            look = FolderLook(limit, folder)
            file = folder_file(folder, lesson_id, look, display or "")
            code = read_code(file, limit, folder)
            lesson = lesson_of(file, lesson_id, code.notebook_lesson)
            text = "\n".join(cell.source for cell in code.cells)
            helpers = read_helpers(folder, file, code.code_bytes, limit, text)
            warnings = look.warnings() + left_out(folder, file, lesson, look, text)
            warnings += helpers.warnings + code.warnings
    elif stat.S_ISREG(mode):
        file, code, helpers = path, read_code(path, limit), Helpers()
        lesson = lesson_of(file, lesson_id, code.notebook_lesson)
        warnings = code.warnings
    else:
        raise unsafe(path.name, mode)  # a link or a special file: never followed or opened
    return SubmissionSource(
        path=file,
        display=display or str(path),
        kind=code.kind,
        lesson=lesson,
        cells=helpers.cells + code.cells,
        warnings=warnings,
        student=student_name(path),
        local_modules=helpers.modules,
        left_behind=helpers.left_behind,
    )
