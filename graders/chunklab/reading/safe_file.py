"""Reads a submission's files without trusting the file system they sit on.

Only regular files are read. A symbolic link is never followed (it could point
at a solution, another student's work or `/dev/zero`), and a FIFO, device or
socket is never opened in a way that waits. The size limit counts the bytes
actually read, not what `stat` claims, so no file can hold the run or its memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from chunklab.errors import UnreadableSubmissionError, UnsafePathError

# O_NOFOLLOW: a link swapped in after the check is refused, not followed.
# O_NONBLOCK: a FIFO swapped in after the check does not wait for a writer.
OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CHUNK = 1 << 16


def is_folder(path: Path) -> bool:
    """A folder itself, not a link to one; anything gone or unreadable is left to its reading."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def what_it_is(mode: int) -> str:
    """A file type in words, for a message."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def unsafe(name: str, mode: int) -> UnsafePathError:
    return UnsafePathError(
        f"{name} is {what_it_is(mode)}, which is never read or followed; hand in the file itself"
    )


def mode_of(path: Path) -> int:
    """The file type of `path` itself (a link is a link), or an error a person can act on."""
    try:
        return os.lstat(path).st_mode
    except OSError as error:
        raise UnreadableSubmissionError(f"{path.name} cannot be opened: {error.strerror}") from None


def read_regular_file(path: Path, limit: int) -> bytes:
    """The regular file `path`, cut at `limit + 1` bytes: longer than `limit` means too large."""
    mode = mode_of(path)
    if not stat.S_ISREG(mode):
        raise unsafe(path.name, mode)
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except OSError as error:
        raise UnreadableSubmissionError(f"{path.name} cannot be opened: {error.strerror}") from None
    try:
        opened = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(opened):  # swapped between lstat and open
            raise unsafe(path.name, opened)
        return read_at_most(descriptor, limit + 1)
    except OSError as error:
        raise UnreadableSubmissionError(f"{path.name} cannot be read: {error.strerror}") from None
    finally:
        os.close(descriptor)


def read_at_most(descriptor: int, limit: int) -> bytes:
    """Reads until the end or `limit` bytes, whatever size the file claims to have."""
    parts: list[bytes] = []
    total = 0
    while total < limit:
        part = os.read(descriptor, min(_CHUNK, limit - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)
