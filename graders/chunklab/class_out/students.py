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
    file system that ignores case, gets a hash of the real name. A student may
    choose a name that is exactly another's hashed one, so every clash left is
    settled again with a longer hash of each real name, never by who came first.
    """
    unique = sorted(set(students))
    plain = {student: safe_name(student) for student in unique}
    names = {
        student: name if name == student else hashed(name, student, 8)
        for student, name in plain.items()
    }
    for length in (8, 16, 64):
        clashing = clashes(names)
        if not clashing:
            return names
        for student in clashing:
            names[student] = hashed(plain[student], student, length)
    # Hashes of different names never clash in practice; number what is left, in order.
    for number, student in enumerate(sorted(clashes(names))):
        names[student] = f"{names[student]}-{number}"
    return names


def hashed(name: str, student: str, length: int) -> str:
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:length]
    return f"{name}-{digest}"


def clashes(names: dict[str, str]) -> set[str]:
    """The students whose page name another's equals, case aside."""
    seen: dict[str, list[str]] = {}
    for student, name in names.items():
        seen.setdefault(name.lower(), []).append(student)
    return {student for group in seen.values() if len(group) > 1 for student in group}


def safe_name(student: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", student).strip("_")
    return name[:PAGE_NAME_LIMIT] or "student"
