"""A student's files as an LMS hands them back: names made plain, zips opened, nothing lost unseen.

An LMS keeps the names students give their files, and adds its own marks:
`char_chunk-1.py` (Canvas renamed a second upload), `Char-Chunk (1).PY`
(a browser's copy), `char_chunk.py.txt` (an editor's), `char_chunk_final.py`.
Each is graded as the lesson it plainly is, under the lesson's file name, and
the report says so; a file that cannot be graded is named in a warning that
says what to do. A `.zip` a student uploaded is opened, within the limits a
submission folder has; a link inside it is never made.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from chunklab.lessons import LESSONS
from chunklab.scoring.report import Problem

WARNING_KIND = "lms_file"
GRADED_SUFFIXES = (".py", ".ipynb")
# What a zip or a download holds that is no one's work: left out without a word.
JUNK = ("__MACOSX", ".DS_Store", "Thumbs.db", "__pycache__", ".ipynb_checkpoints")
# A resubmission (Canvas: `-1`) or a copy (`(1)`) at the end of a file's stem, and its number.
COPY_MARK = re.compile(r"(?:-(\d+)|\s*\((\d+)\))$")


@dataclass(frozen=True)
class PlainName:
    """The name a handed-in file is graded under, and why it differs from the one it had."""

    name: str
    copy: int = 0  # a later upload or copy of the same file has a higher number
    note: str = ""


def plain_name(original: str) -> PlainName | None:
    """The file's name as the grader reads it; None when it is no .py, notebook or zip."""
    name, notes = original, []
    doubled = re.fullmatch(r"(.+\.(?:py|ipynb))\.txt", name, re.IGNORECASE)
    if doubled:
        name = doubled.group(1)
        notes.append("its name ended in .txt")
    stem, dot, suffix = name.rpartition(".")
    suffix = f".{suffix.lower()}" if dot else ""
    if suffix not in (*GRADED_SUFFIXES, ".zip"):
        return None
    copy_mark = COPY_MARK.search(stem)
    copy = int(copy_mark.group(1) or copy_mark.group(2)) if copy_mark else 0
    if copy_mark:
        stem = stem[: copy_mark.start()]
    plain = re.sub(r"[\s-]+", "_", stem.casefold())
    lessons = [lesson for lesson in LESSONS if lesson in plain]
    if len(lessons) == 1 and suffix != ".zip":
        new = f"{lessons[0]}{suffix}"
    else:
        new = f"{stem}{suffix}"
    if copy_mark:
        notes.append(f"it is upload or copy number {copy} of the file")
    if new != original and not notes:
        notes.append("its name was not the lesson's file name")
    note = f"{original} was graded as {new}: {', '.join(notes)}" if new != original else ""
    return PlainName(new, copy, note)


def not_graded(name: str, why: str) -> Problem:
    return Problem(WARNING_KIND, f"{name} is not graded: {why}")


def not_a_submission(name: str) -> Problem:
    return not_graded(
        name,
        "only .py files and .ipynb notebooks are graded; hand in your code as a .py file "
        "or the lesson's notebook",
    )


@dataclass(frozen=True)
class Unpacked:
    """A member of a student's zip, read within the limits."""

    name: str
    data: bytes


def member_name(member: zipfile.ZipInfo) -> str:
    """A member's name as its zip tool wrote it: UTF-8 bytes without the UTF-8 flag
    (as Info-ZIP's `zip` writes them) are read as UTF-8, not as cp437."""
    if member.flag_bits & 0x800:
        return member.filename
    try:
        return member.filename.encode("cp437").decode("utf-8")
    except UnicodeError:
        return member.filename


def unpack(
    archive: str, data: bytes, most_entries: int, most_bytes: int
) -> tuple[list[Unpacked], list[Problem]]:
    """The regular files of a zip, each read to at most `most_bytes + 1` bytes.

    A member that is a link, that would land outside the zip's own folder, or
    beyond `most_entries` is never written; the student is told.
    """
    found: list[Unpacked] = []
    said: list[Problem] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as opened:
            members = opened.infolist()
            if len(members) > most_entries:
                return [], [
                    not_graded(
                        archive,
                        f"it holds more than {most_entries:,} entries; hand in only your solution",
                    )
                ]
            for member in members:
                path = PurePosixPath(member_name(member).replace("\\", "/"))
                if member.is_dir() or any(part in JUNK for part in path.parts):
                    continue
                if path.is_absolute() or ".." in path.parts:
                    said.append(
                        not_graded(
                            f"{archive}: {member.filename}",
                            "it points outside the zip; zip your files as they are",
                        )
                    )
                    continue
                if stat.S_ISLNK(member.external_attr >> 16):
                    said.append(
                        not_graded(
                            f"{archive}: {member.filename}",
                            "it is a symbolic link, never followed; zip the file itself",
                        )
                    )
                    continue
                with opened.open(member) as stream:
                    found.append(Unpacked(str(path), stream.read(most_bytes + 1)))
    except (OSError, zipfile.BadZipFile, ValueError, RuntimeError, NotImplementedError) as error:
        return [], [
            not_graded(
                archive,
                f"it cannot be opened as a zip ({error}); hand in your .py file or notebook itself",
            )
        ]
    return found, said
