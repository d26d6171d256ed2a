"""Who handed a submission in, and the file name of each student's feedback page."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import PurePath

from chunklab.reading.read import SUBMISSION_SUFFIXES
from chunklab.reading.student import name_beside_lesson
from chunklab.scoring.report import GradeReport

# Long enough to read, short enough for every file system once the suffix is added.
PAGE_NAME_LIMIT = 60


def student_of(report: GradeReport) -> str:
    """The report's `student`, or the one its submission path names.

    A student folder is named for the student; a file is named for the student
    and the lesson (`alice_char_chunk.py` is alice's).
    """
    if report.student:
        return report.student
    path = PurePath((report.submission or "submission").replace("\\", "/"))
    if path.suffix not in SUBMISSION_SUFFIXES:
        return path.name or str(path)
    return name_beside_lesson(path.name) or path.stem


def page_names(students: Iterable[str]) -> dict[str, str]:
    """A file name (no suffix) per student: readable, safe, and never shared by two students.

    A name that had to change to be safe, or that would clash with another on a
    file system that ignores case, gets a short hash of the real name.
    """
    unique = sorted(set(students))
    plain = {student: safe_name(student) for student in unique}
    seen: dict[str, int] = {}
    for name in plain.values():
        seen[name.lower()] = seen.get(name.lower(), 0) + 1
    names = {}
    for student, name in plain.items():
        if name != student or seen[name.lower()] > 1:
            digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            name = f"{name}-{digest}"
        names[student] = name
    return names


def safe_name(student: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", student).strip("_")
    return name[:PAGE_NAME_LIMIT] or "student"
