"""Students and their folders: whose a submission is, and which file in a folder is which lesson.

A student's folder may hold several lessons' files and helper modules. Only
regular files are looked at, found without following a symbolic link, so a
link inside a folder is never read from here.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path, PurePath

from chunklab.errors import SubmissionError
from chunklab.lessons import LESSONS, Lesson, lesson_named_in
from chunklab.reading.safe_file import read_regular_file, student_files
from chunklab.reading.source import NOTEBOOK_METADATA_KEY, CodeCell

SUBMISSION_SUFFIXES = (".py", ".ipynb")
# Folders a student's editor or Jupyter leaves behind; never a submission.
SKIPPED_FOLDERS = (".ipynb_checkpoints", "__pycache__")
# A file this large is not read just to tell its lesson (the reader refuses it later).
MAX_SNIFF_BYTES = 5_000_000
HELPERS_LABEL = "helper modules"
# A student's folder with more entries than this is not a chunking exercise.
MOST_FOLDER_ENTRIES = 10_000


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


def regular_files(folder: Path) -> list[Path]:
    """The `.py` and `.ipynb` regular files in a folder and its sub-folders, sorted.

    Symbolic links are never followed: a link or a special file that looks like
    a submission makes the folder unsafe (`UnsafePathError`). Hidden files and
    the folders editors leave behind are not listed.
    """
    return [
        path
        for path in student_files(folder, SUBMISSION_SUFFIXES, MOST_FOLDER_ENTRIES)
        if not any(
            part.startswith(".") or part in SKIPPED_FOLDERS
            for part in path.relative_to(folder).parts
        )
    ]


def read_small(path: Path) -> bytes | None:
    try:
        raw = read_regular_file(path, MAX_SNIFF_BYTES)
    except SubmissionError:
        return None
    return None if len(raw) > MAX_SNIFF_BYTES else raw


def notebook_data(raw: bytes | None) -> dict | None:
    try:
        data = json.loads(raw or b"")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def notebook_metadata_lesson(path: Path) -> str | None:
    """The lesson a notebook names in its metadata (read without nbformat), if any."""
    data = notebook_data(read_small(path))
    entry = (data or {}).get("metadata", {}).get(NOTEBOOK_METADATA_KEY)
    lesson = entry.get("lesson") if isinstance(entry, dict) else None
    return lesson if lesson in LESSONS else None


def file_lesson(path: Path) -> str | None:
    """The lesson a file is for, by its name, else by its notebook metadata."""
    lesson = lesson_named_in(path.name)
    if lesson is not None:
        return lesson.id
    return notebook_metadata_lesson(path) if path.suffix == ".ipynb" else None


def names_two_lessons(path: Path) -> bool:
    """A notebook whose file name and metadata name different lessons: the reader decides."""
    named = lesson_named_in(path.name)
    if named is None or path.suffix != ".ipynb":
        return False
    in_metadata = notebook_metadata_lesson(path)
    return in_metadata is not None and in_metadata != named.id


def code_of(path: Path) -> list[str]:
    """The code of a `.py` file, or of each code cell of a notebook (for a quick look)."""
    raw = read_small(path)
    if raw is None:
        return []
    if path.suffix == ".py":
        return [raw.decode("utf-8", errors="replace")]
    cells = (notebook_data(raw) or {}).get("cells", [])
    code = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code.append("".join(source) if isinstance(source, list) else str(source))
    return code


def defines(path: Path, name: str) -> bool:
    """Whether a file defines `name` at its top level (read, never run)."""
    for code in code_of(path):
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if node.name == name:
                    return True
            elif isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                    return True
    return False


def lessons_in(folder: Path) -> dict[str, list[Path]]:
    """Each lesson a folder holds files for, by file name or notebook metadata."""
    found: dict[str, list[Path]] = {}
    for path in regular_files(folder):
        lesson = None if names_two_lessons(path) else file_lesson(path)
        if lesson is not None:
            found.setdefault(lesson, []).append(path)
    return {lesson: found[lesson] for lesson in LESSONS if lesson in found}


def pick_file(folder: Path, lesson: Lesson | None) -> list[Path]:
    """The candidates for a lesson's file in a folder, best first.

    One file is taken as it is. Among several: the ones named after the lesson
    (or naming it in their notebook metadata), else the ones that define the
    lesson's function or class; a `.py` file before a notebook of the same rank.
    Without a lesson, the candidates are the files of the only lesson named.
    """
    files = regular_files(folder)
    if len(files) <= 1:
        return files
    if lesson is None:
        by_lesson = lessons_in(folder)
        return rank(by_lesson[next(iter(by_lesson))]) if len(by_lesson) == 1 else files
    named = [path for path in files if file_lesson(path) == lesson.id]
    if named:
        return rank(named, lesson)
    defining = [path for path in files if defines(path, lesson.entry_point)]
    return rank(defining, lesson) if defining else files


def rank(files: list[Path], lesson: Lesson | None = None) -> list[Path]:
    """`.py` files before notebooks; then those that define the entry point."""

    def key(path: Path) -> tuple[bool, bool, str]:
        defining = lesson is not None and defines(path, lesson.entry_point)
        return (not defining, path.suffix != ".py", str(path))

    return sorted(files, key=key)


def helper_files(folder: Path, graded: Path) -> list[Path]:
    """The `.py` files beside the graded file that no lesson claims: modules it may import."""
    return [
        path
        for path in regular_files(folder)
        if path.parent == graded.parent
        and path != graded
        and path.suffix == ".py"
        and path.stem.isidentifier()
        and file_lesson(path) is None
    ]


HELPERS_CELL = '''\
def __chunklab_install_helpers(sources):
    import importlib.abc
    import importlib.util
    import sys

    class HelperModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """The student's own modules, imported from the source handed in with the lesson."""

        def find_spec(self, name, path=None, target=None):
            if name in sources:
                return importlib.util.spec_from_loader(name, self, origin=sources[name][0])
            return None

        def exec_module(self, module):
            label, source = sources[module.__name__]
            module.__file__ = label
            exec(compile(source, label, "exec"), module.__dict__)

    sys.meta_path.insert(0, HelperModules())


__chunklab_install_helpers(%r)
del __chunklab_install_helpers
'''


def helpers_cell(folder: Path, graded: Path) -> tuple[CodeCell, ...]:
    """A cell that lets the graded code import the helper modules beside it.

    The helpers travel as source inside this cell, so they reach the worker the
    way every cell does; each runs only when the lesson's code imports it.
    """
    sources = {}
    for path in helper_files(folder, graded):
        raw = read_small(path)
        if raw is not None:
            sources[path.stem] = (path.name, raw.decode("utf-8", errors="replace"))
    if not sources:
        return ()
    return (CodeCell(index=-1, label=HELPERS_LABEL, source=HELPERS_CELL % (sources,)),)
