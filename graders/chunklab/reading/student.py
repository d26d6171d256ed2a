"""Students and their folders: whose a submission is, and which file in a folder is which lesson.

A student's folder may hold several lessons' files and helper modules. Only
regular files are looked at, found without following a symbolic link, so a
link inside a folder is never read from here.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

from chunklab.errors import SubmissionError
from chunklab.lessons import LESSONS, Lesson, lesson_named_in
from chunklab.reading.candidates import DEFAULT_MAX_SUBMISSION_KB, FolderLook
from chunklab.reading.folder import MOST_FOLDER_ENTRIES, OpenFolder
from chunklab.reading.lesson_of import lesson_of

SUBMISSION_SUFFIXES = (".py", ".ipynb")
# Folders a student's editor or Jupyter leaves behind; never a submission.
SKIPPED_FOLDERS = (".ipynb_checkpoints", "__pycache__")


# What may stand between a student's name and the lesson id in a file name.
SEPARATORS = r"[\s_.-]+"


def student_name(path: Path) -> str:
    """The folder's name; for a file, its name without the lesson id and extension.

    `alice_char_chunk.py` gives `alice`; a name that is only a lesson id
    (`char_chunk.py`) gives the file name itself.
    """
    if path.is_dir():
        return path.name
    return name_beside_lesson(path.name) or path.name


def name_beside_lesson(file_name: str) -> str:
    """A file name without its extension, the lesson id and the separators touching it.

    Nothing else changes, so names that differ stay different: `j.smith_char_chunk.py`
    is `j.smith`, `char_chunk-mary-ann.py` is `mary-ann`. Empty if nothing is left.
    """
    suffix = PurePath(file_name).suffix
    stem = file_name[: -len(suffix)] if suffix else file_name
    lesson = lesson_named_in(file_name)
    if lesson is None or lesson.id not in stem:
        return stem
    before, _, after = stem.partition(lesson.id)
    after = re.sub("^" + SEPARATORS, "", after)
    # Between two parts, the separator before the lesson id stays to keep them apart.
    return before + after if before and after else re.sub(SEPARATORS + "$", "", before) + after


def regular_files(folder: Path | OpenFolder) -> list[Path]:
    """The `.py` and `.ipynb` regular files in a folder and its sub-folders, sorted.

    Symbolic links are never followed: a link or a special file that looks like
    a submission makes the folder unsafe (`UnsafePathError`). Hidden files and
    the folders editors leave behind are not listed. A folder given as a path is
    opened for this listing only (see `OpenFolder`).
    """
    if not isinstance(folder, OpenFolder):
        with OpenFolder(folder, SUBMISSION_SUFFIXES, MOST_FOLDER_ENTRIES) as opened:
            return regular_files(opened)
    return [
        path
        for path in folder.files()
        if not any(
            part.startswith(".") or part in SKIPPED_FOLDERS
            for part in path.relative_to(folder.path).parts
        )
    ]


def file_lesson(path: Path, look: FolderLook | None = None) -> str | None:
    """The lesson one of a student's files says it is for (`lesson_of`), if it tells one."""
    notebook = path.suffix == ".ipynb"
    metadata = (look or default_look()).at(path).metadata_lesson if notebook else None
    try:
        return lesson_of(path, metadata=metadata, by_folder=False).id
    except SubmissionError:
        return None


def names_two_lessons(path: Path, look: FolderLook | None = None) -> bool:
    """A file whose name tells a lesson but whose lesson cannot be told (its notebook metadata
    names another, or no lesson): it is read on its own, to be reported."""
    return lesson_named_in(path.name) is not None and file_lesson(path, look) is None


def default_look(folder: Path | OpenFolder | None = None) -> FolderLook:
    opened = folder if isinstance(folder, OpenFolder) else None
    return FolderLook(DEFAULT_MAX_SUBMISSION_KB * 1024, opened)


def lessons_in(
    folder: Path | OpenFolder, look: FolderLook | None = None
) -> dict[str, list[Path]]:
    """Each lesson a folder holds files for, by file name or notebook metadata."""
    look = look or default_look(folder)
    found: dict[str, list[Path]] = {}
    for path in regular_files(folder):
        lesson = None if names_two_lessons(path, look) else file_lesson(path, look)
        if lesson is not None:
            found.setdefault(lesson, []).append(path)
    return {lesson: found[lesson] for lesson in LESSONS if lesson in found}


def pick_file(
    folder: Path | OpenFolder, lesson: Lesson | None, look: FolderLook | None = None
) -> list[Path]:
    """The candidates for a lesson's file in a folder, best first.

    One file is taken as it is. Among several: the ones named after the lesson
    (or naming it in their notebook metadata), else the ones that define the
    lesson's function or class; a `.py` file before a notebook of the same rank.
    Without a lesson, the candidates are the files of the only lesson named.
    A file larger than a submission may be is never looked into (see `FolderLook`).
    """
    look = look or default_look(folder)
    files = regular_files(folder)
    if len(files) <= 1:
        return files
    if lesson is None:
        by_lesson = lessons_in(folder, look)
        return rank(by_lesson[next(iter(by_lesson))], look) if len(by_lesson) == 1 else files
    named = [path for path in files if file_lesson(path, look) == lesson.id]
    if named:
        return rank(named, look, lesson)
    defining = [path for path in files if lesson.entry_point in look.at(path).defined]
    return rank(defining, look, lesson) if defining else files


def rank(files: list[Path], look: FolderLook, lesson: Lesson | None = None) -> list[Path]:
    """`.py` files before notebooks; then those that define the entry point."""

    def key(path: Path) -> tuple[bool, bool, str]:
        defining = lesson is not None and lesson.entry_point in look.at(path).defined
        return (not defining, path.suffix != ".py", str(path))

    return sorted(files, key=key)


def helper_packages(files: list[Path], graded: Path) -> list[str]:
    """The packages (folders with an `__init__.py`) among a folder's `files` beside the graded
    file: never sent."""
    return sorted(
        {
            path.parent.name
            for path in files
            if path.name == "__init__.py"
            and path.parent.parent == graded.parent
            and path.parent.name.isidentifier()
        }
    )


def modules_beside(files: list[Path], graded: Path) -> list[Path]:
    """The `.py` files among a folder's `files` beside the graded file: importable by name."""
    return [
        path
        for path in files
        if path.parent == graded.parent
        and path != graded
        and path.suffix == ".py"
        and path.stem.isidentifier()
    ]


def helper_files(files: list[Path], graded: Path) -> list[Path]:
    """The `.py` files among a folder's `files` beside the graded file that no lesson claims:
    modules it may import."""
    return [path for path in modules_beside(files, graded) if lesson_named_in(path.name) is None]
