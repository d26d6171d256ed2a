"""A submission's files as bytes: packed where it was found, unpacked where it is graded.

Workers of a cluster share no file system with the instructor's machine, so
the files travel with the task. They are unpacked under the same names (the
file, its folder, the folder around it) because the lesson may be told from
those names and messages quote them; the report keeps the display path.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from chunklab.errors import SubmissionError, UnreadableSubmissionError
from chunklab.reading.read import NOTEBOOK_OUTPUTS_BYTES, SUBMISSION_SUFFIXES, SubmissionPath
from chunklab.reading.safe_file import unsafe

# Where a submission given without a folder around it (`chunklab grade alice.py`) is
# unpacked: a name that names no lesson, like the empty name it stands for.
NO_PARENT = "submission"


@dataclass(frozen=True)
class PackedFile:
    relative: str  # "/"-separated, inside the student's folder; the file's name for a file
    data: bytes
    # Larger than len(data) when only the size travels: a file over the reader's limit is
    # unpacked as a sparse file of that size, so the reader refuses it as it does at home.
    size: int


@dataclass(frozen=True)
class Parcel:
    """One submission on its way to a worker."""

    index: int
    display: str
    name: str
    parent: str  # the name of the folder around it ("" when none was given)
    is_folder: bool = False
    files: tuple[PackedFile, ...] = ()
    # Whose work it is and, for a student's folder split by lesson, which lesson.
    student: str = ""
    lesson: str | None = None
    # Why it was not read (a link, a FIFO, an unreadable file): reported, never graded.
    refusal: SubmissionError | None = None


def unsafe_entry(path: Path, mode: int, name: str | None = None) -> SubmissionError | None:
    """The one check of what is never followed or opened: all but plain files and folders.

    The error is the reader's own (`unsafe_path`), so a report says the same as locally.
    """
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return unsafe(name or path.name, mode)


def cannot_open(path: Path, error: OSError) -> SubmissionError:
    return UnreadableSubmissionError(f"{path.name} cannot be opened: {error.strerror}")


def most_bytes(max_submission_kb: int) -> int:
    """The largest file the reader may accept: the code limit and a notebook's outputs."""
    return max_submission_kb * 1024 + NOTEBOOK_OUTPUTS_BYTES


def pack(index: int, item: SubmissionPath, most: int = most_bytes(1024)) -> Parcel:
    """Read a submission where it was found, never following a link.

    A file larger than `most` bytes travels as its size only: the reader refuses it.
    """
    path = item.path
    parcel = Parcel(
        index, item.display, path.name, path.parent.name, student=item.student, lesson=item.lesson
    )
    try:
        mode = path.lstat().st_mode
        refusal = unsafe_entry(path, mode)
        if refusal is not None:
            return replace(parcel, refusal=refusal)
        if stat.S_ISDIR(mode):
            return replace(parcel, is_folder=True, files=pack_folder(path, most))
        return replace(parcel, files=(pack_file(path, path.name, most),))
    except SubmissionError as error:
        return replace(parcel, refusal=error)
    except OSError as error:
        return replace(parcel, refusal=cannot_open(path, error))


def pack_folder(folder: Path, most: int) -> tuple[PackedFile, ...]:
    """The files of a student's folder that the reader may open (`.py`, `.ipynb`)."""

    def fail(error: OSError) -> None:
        raise error

    packed = []
    for where, folders, names in os.walk(folder, onerror=fail):
        folders.sort()
        for name in sorted(names):
            path = Path(where, name)
            if path.suffix not in SUBMISSION_SUFFIXES:
                continue  # the reader never opens it; it stays here
            relative = path.relative_to(folder).as_posix()
            refusal = unsafe_entry(path, path.lstat().st_mode, f"{folder.name}/{relative}")
            if refusal is not None:
                raise refusal
            try:
                packed.append(pack_file(path, relative, most))
            except OSError as error:
                raise cannot_open(path, error) from None
    return tuple(packed)


def pack_file(path: Path, relative: str, most: int) -> PackedFile:
    # O_NOFOLLOW and O_NONBLOCK: a file swapped for a link or a FIFO since it was
    # looked at is neither followed nor waited on.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        refusal = unsafe_entry(path, info.st_mode)
        if refusal is not None:
            raise refusal
        if info.st_size > most:
            return PackedFile(relative, b"", info.st_size)
        data = file.read(most + 1)
    return PackedFile(relative, data, len(data))


def unpack(parcel: Parcel, scratch: Path) -> Path:
    """Write the parcel's files under `scratch`; the path to grade, named as at home."""
    around = scratch / (parcel.parent or NO_PARENT)
    target = around / parcel.name
    for packed in parcel.files:
        relative = PurePosixPath(packed.relative)
        if relative.is_absolute() or ".." in relative.parts:
            raise UnreadableSubmissionError(f"{packed.relative} is not a name inside the folder")
        path = target / relative if parcel.is_folder else target
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as file:
            file.write(packed.data)
            if packed.size > len(packed.data):
                file.truncate(packed.size)
    if parcel.is_folder:
        target.mkdir(parents=True, exist_ok=True)
    return target
