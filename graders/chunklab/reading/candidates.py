"""A look inside a student's files, to choose which one is graded: never a run, never a parse.

To tell a folder's files apart, the grader looks at what each names and
defines. That look happens in the grading process itself, outside every limit
a worker has, so it must cost little whatever a file holds:

- a file larger than the reader would accept (`--max-submission-kb`; a
  notebook may add its outputs) is not opened at all, and the student is told;
- each file is looked at once, whatever decisions need it;
- Python is never parsed here: a top-level definition is found by scanning the
  lines (a parser can recurse, or take gigabytes, on a few hundred KB of `1+1+...`);
- a notebook's JSON is read by the same checked reader as a graded notebook,
  and one that cannot be read is left out, and the student told why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chunklab.errors import SubmissionError
from chunklab.lessons import LESSONS
from chunklab.reading.folder import OpenFolder
from chunklab.reading.lesson_of import metadata_lesson
from chunklab.reading.notebook_file import NOTEBOOK_OUTPUTS_BYTES, load_json
from chunklab.reading.safe_file import read_regular_file
from chunklab.scoring.report import Problem

WARNING_KIND = "file_skipped"
# The largest submission's code read, in KB: `--max-submission-kb`'s default.
DEFAULT_MAX_SUBMISSION_KB = 1024
# A folder's files are looked into until this many of the largest files a
# submission may have were read; the rest are skipped (a student hands in a few).
MOST_FILES_LOOKED_INTO = 4
ENTRY_POINTS = tuple(lesson.entry_point for lesson in LESSONS.values())


def definition_pattern(name: str) -> re.Pattern[str]:
    """A line at column 0 that defines `name`: `def`, `async def`, `class`, or an assignment."""
    word = re.escape(name)
    return re.compile(
        rf"^(?:(?:async[ \t]+)?def|class)[ \t]+{word}\b|^{word}[ \t]*(?::[^=\n]*)?=(?!=)",
        re.MULTILINE,
    )


DEFINITIONS = {name: definition_pattern(name) for name in ENTRY_POINTS}


@dataclass(frozen=True)
class FileLook:
    """What one file shows without being run: the lesson its metadata names, what it defines."""

    path: Path
    # What its notebook metadata names as the lesson, as written (`lesson_of` judges it).
    metadata_lesson: str | None = None
    defined: frozenset[str] = frozenset()
    # Why the file was not looked into (too large, not readable); None when it was.
    skipped: Problem | None = None
    # The bytes read to look at it: what a folder's looks are bounded by.
    read: int = field(default=0, compare=False)


def largest_file(path: Path, limit: int) -> int:
    """The most bytes the reader takes of `path`: its code limit, and a notebook's outputs."""
    return limit + NOTEBOOK_OUTPUTS_BYTES if path.suffix == ".ipynb" else limit


def skipped(path: Path, why: str) -> Problem:
    return Problem(
        WARNING_KIND,
        f"{path.name} was not looked into to choose the file to grade: {why}",
    )


def look_at(path: Path, limit: int, folder: OpenFolder | None = None) -> FileLook:
    """The look at one file (read through `folder` when given); any failure to read it
    is a reason to skip it, never raised."""
    most = largest_file(path, limit)
    try:
        raw = folder.read(path, most) if folder is not None else read_regular_file(path, most)
    except SubmissionError as error:
        return FileLook(path, skipped=skipped(path, str(error)))
    return replace(look_into(path, raw, most), read=len(raw))


def look_into(path: Path, raw: bytes, most: int) -> FileLook:
    if len(raw) > most:
        return FileLook(
            path,
            skipped=skipped(
                path,
                f"it is larger than {most:,} bytes, more than a submission may hold "
                "(the grader's --max-submission-kb)",
            ),
        )
    if path.suffix != ".ipynb":
        return FileLook(path, defined=defined_in([raw.decode("utf-8", errors="replace")]))
    try:
        data = load_json(path, raw)
    except SubmissionError as error:
        return FileLook(path, skipped=skipped(path, str(error)))
    return FileLook(path, metadata_lesson(data), defined_in(code_cells(data)))


def defined_in(sources: list[str]) -> frozenset[str]:
    return frozenset(
        name for name, pattern in DEFINITIONS.items() if any(pattern.search(s) for s in sources)
    )


def code_cells(data: Any) -> list[str]:
    """The text of each code cell, for a quick look (the reader checks a notebook's shape)."""
    cells = data.get("cells") if isinstance(data, dict) else None
    code = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            if isinstance(source, list):
                source = "".join(line for line in source if isinstance(line, str))
            code.append(source if isinstance(source, str) else "")
    return code


class FolderLook:
    """The looks at one student's files, each taken at most once, within the size limit.

    One is made per folder for each pass over it (finding its submissions,
    reading one); the files skipped on the way are reported with the submission.
    All its looks together read at most `MOST_FILES_LOOKED_INTO` of the largest
    files a submission may have, so a folder of thousands of files costs no more.
    """

    def __init__(self, limit: int, folder: OpenFolder | None = None) -> None:
        self.limit = limit
        # The student's folder open, whose files are read through its handle.
        self.folder = folder
        self.budget = MOST_FILES_LOOKED_INTO * largest_file(Path("any.ipynb"), limit)
        self._looks: dict[Path, FileLook] = {}

    def at(self, path: Path) -> FileLook:
        if path not in self._looks:
            self._looks[path] = self._look(path)
        return self._looks[path]

    def _look(self, path: Path) -> FileLook:
        if self.budget < largest_file(path, self.limit):
            why = f"the files looked into before it already hold {self.spent():,} bytes"
            return FileLook(path, skipped=skipped(path, why))
        look = look_at(path, self.limit, self.folder)
        self.budget -= look.read
        return look

    def spent(self) -> int:
        return sum(look.read for look in self._looks.values())

    def warnings(self) -> tuple[Problem, ...]:
        """Why each file looked at and skipped was skipped, in file order."""
        return tuple(
            look.skipped for _, look in sorted(self._looks.items()) if look.skipped is not None
        )
