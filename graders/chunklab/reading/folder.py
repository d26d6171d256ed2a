"""A student's folder, opened once: everything in it is listed and read through that handle.

A path is a question asked of the file system again each time it is used, and a
student's folder can change between two questions: a sub-folder checked to be a
folder, then swapped for a link to another student's work or to the solutions,
would be followed by the next open of a path through it. So the folder is
opened once (`O_DIRECTORY|O_NOFOLLOW`, a link refused), and every entry below
it is reached from that handle one name at a time, each opened without
following a link (`O_NOFOLLOW`, relative to its folder's handle). Whatever the
folder becomes while it is read, nothing outside it is ever read.

The walk is bounded: at most `most_entries` entries and `MOST_FOLDER_DEPTH`
levels of folders, with one handle open per level, so no folder can exhaust the
grader's file handles, recursion or time.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType

from chunklab.errors import UnreadableSubmissionError
from chunklab.reading.safe_file import OPEN_FLAGS, read_at_most, unsafe

FOLDER_FLAGS = (
    os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
# A student's folder with more entries than this is not a chunking exercise.
MOST_FOLDER_ENTRIES = 10_000
# Folders nested deeper than this below a student's folder: not a chunking exercise either.
MOST_FOLDER_DEPTH = 32
# Sub-folders never entered: what Jupyter leaves behind.
NOT_ENTERED = (".ipynb_checkpoints",)


@dataclass(frozen=True)
class Listed:
    """A regular file found in the folder, and its size when it was listed."""

    path: Path
    size: int


def mode_at(folder_fd: int, name: str) -> int:
    """The file type of `name` in the folder open as `folder_fd`, a link being a link."""
    try:
        return os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode
    except OSError:
        return 0


def opened_folder(path: Path) -> int:
    """A handle on the folder `path` itself: refused if it is (or became) a link."""
    try:
        return os.open(path, FOLDER_FLAGS)
    except OSError as error:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = 0
        if mode and not stat.S_ISDIR(mode):
            raise unsafe(path.name, mode) from None
        raise UnreadableSubmissionError(
            f"the folder {path.name} cannot be opened: {error.strerror}"
        ) from None


class OpenFolder:
    """One student's folder, open: its `.py`/`.ipynb` files listed once, read by handle.

    Use it as a context manager; the handle is closed when it ends.
    """

    def __init__(
        self,
        path: Path,
        suffixes: tuple[str, ...] = (".py", ".ipynb"),
        most_entries: int = MOST_FOLDER_ENTRIES,
    ) -> None:
        self.path = path
        self.name = path.name
        self.suffixes = suffixes
        self.most_entries = most_entries
        self._fd: int | None = opened_folder(path)
        self._listed: tuple[Listed, ...] | None = None

    def __enter__(self) -> OpenFolder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise ValueError(f"the folder {self.name} is closed")
        return self._fd

    def files(self) -> list[Path]:
        """The regular files with one of the suffixes anywhere in the folder, sorted.

        A link or special file named like one makes the whole folder unsafe
        (`UnsafePathError`); a link to a folder is never entered.
        """
        return [listed.path for listed in self.listed()]

    def size_of(self, path: Path) -> int:
        """The size a listed file had when it was listed (0 for a file not listed)."""
        return next((listed.size for listed in self.listed() if listed.path == path), 0)

    def listed(self) -> tuple[Listed, ...]:
        if self._listed is None:
            self._listed = tuple(sorted(self._walk(), key=lambda listed: str(listed.path)))
        return self._listed

    def _walk(self) -> list[Listed]:
        found: list[Listed] = []
        seen = 0
        # One level per folder being walked: its handle, where it is, the sub-folders left.
        levels: list[tuple[int, PurePosixPath, list[str]]] = []
        try:
            fd, relative = os.dup(self.fd), PurePosixPath()
            while True:
                entries = self._entries(fd, relative)
                seen += len(entries)
                if seen > self.most_entries:
                    raise UnreadableSubmissionError(
                        f"the folder {self.name} holds more than {self.most_entries:,} files "
                        "and folders; hand in only your solution"
                    )
                folders = []
                for name, mode, size in entries:
                    if stat.S_ISDIR(mode):
                        if name not in NOT_ENTERED:
                            folders.append(name)
                    elif PurePosixPath(name).suffix in self.suffixes:
                        if not stat.S_ISREG(mode):
                            raise unsafe(f"{self.name}/{(relative / name).as_posix()}", mode)
                        found.append(Listed(self.path / relative / name, size))
                levels.append((fd, relative, sorted(folders, reverse=True)))
                next_level = self._next_folder(levels)
                if next_level is None:
                    return found
                fd, relative = next_level
        finally:
            for level_fd, _, _ in levels:
                os.close(level_fd)

    def _next_folder(
        self, levels: list[tuple[int, PurePosixPath, list[str]]]
    ) -> tuple[int, PurePosixPath] | None:
        """The next sub-folder to walk, opened; the levels it leaves behind closed."""
        while levels:
            fd, relative, folders = levels[-1]
            if not folders:
                os.close(fd)
                levels.pop()
                continue
            name = folders.pop()
            if len(levels) > MOST_FOLDER_DEPTH:
                raise UnreadableSubmissionError(
                    f"the folder {self.name} holds folders nested more than "
                    f"{MOST_FOLDER_DEPTH} deep; hand in only your solution"
                )
            return self._open_below(fd, name, relative / name), relative / name
        return None

    def _open_below(self, folder_fd: int, name: str, relative: PurePosixPath) -> int:
        """The sub-folder `name` of the folder open as `folder_fd`, never through a link."""
        shown = f"{self.name}/{relative.as_posix()}"
        try:
            return os.open(name, FOLDER_FLAGS, dir_fd=folder_fd)
        except OSError as error:
            mode = mode_at(folder_fd, name)
            if error.errno in (errno.ELOOP, errno.ENOTDIR) and mode and not stat.S_ISDIR(mode):
                raise unsafe(shown, mode) from None
            raise UnreadableSubmissionError(
                f"the folder {shown} cannot be read: {error.strerror}"
            ) from None

    def _entries(self, fd: int, relative: PurePosixPath) -> list[tuple[str, int, int]]:
        try:
            with os.scandir(fd) as listing:
                entries = []
                for entry in listing:
                    info = entry.stat(follow_symlinks=False)
                    entries.append((entry.name, info.st_mode, info.st_size))
                    if len(entries) > self.most_entries:
                        break  # counted as too many by the caller
                return entries
        except OSError as error:
            shown = f"{self.name}/{relative.as_posix()}" if relative.parts else self.name
            raise UnreadableSubmissionError(
                f"the folder {shown} cannot be read: {error.strerror}"
            ) from None

    def read(self, path: Path, limit: int) -> bytes:
        """The regular file `path` in this folder, cut at `limit + 1` bytes, read by handle.

        Each folder on the way is opened from the one above it and the file from
        its folder, none through a link: one swapped in since the listing is refused.
        """
        parts = path.relative_to(self.path).parts
        if not parts or ".." in parts:
            raise UnreadableSubmissionError(f"{path.name} is not a file inside {self.name}")
        fd = os.dup(self.fd)
        try:
            for depth, name in enumerate(parts[:-1], start=1):
                below = self._open_below(fd, name, PurePosixPath(*parts[:depth]))
                os.close(fd)
                fd = below
            return read_in(fd, parts[-1], path.name, limit)
        finally:
            os.close(fd)


def read_in(folder_fd: int, name: str, shown: str, limit: int) -> bytes:
    """The regular file `name` of the folder open as `folder_fd`, cut at `limit + 1` bytes.

    It is never followed (a link) or waited on (a FIFO); `shown` names it in messages.
    """
    try:
        file_fd = os.open(name, OPEN_FLAGS, dir_fd=folder_fd)
    except OSError as error:
        mode = mode_at(folder_fd, name)
        if mode and not stat.S_ISREG(mode):
            raise unsafe(shown, mode) from None
        raise UnreadableSubmissionError(f"{shown} cannot be opened: {error.strerror}") from None
    try:
        opened = os.fstat(file_fd).st_mode
        if not stat.S_ISREG(opened):
            raise unsafe(shown, opened)
        return read_at_most(file_fd, limit + 1)
    except OSError as error:
        raise UnreadableSubmissionError(f"{shown} cannot be read: {error.strerror}") from None
    finally:
        os.close(file_fd)
