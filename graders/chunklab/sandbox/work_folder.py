"""Removing what a worker left in its folder: any depth, without recursion, never outside it.

A submission may leave a tree thousands of folders deep. It is removed one
folder at a time, holding two descriptors at most: each folder is opened
relative to its parent (never by path, never through a symbolic link), its
files removed and its subfolders noted; once a folder is empty, its parent
is opened as `..` and checked to be the very folder it came from before the
empty one is removed from it. A folder moved while it is removed (by a
process the submission left running) is left where it is, not followed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass
class Level:
    """A folder on the way down: who it is, its name in its parent, the subfolders left."""

    identity: tuple[int, int]
    name: str
    subfolders: list[str] = field(default_factory=list)


def identity(fd: int) -> tuple[int, int]:
    facts = os.fstat(fd)
    return facts.st_dev, facts.st_ino


def empty_files(fd: int) -> list[str]:
    """Remove every entry of the folder open at `fd` but its subfolders; their names."""
    subfolders = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.name)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.name, dir_fd=fd)
    return subfolders


def open_subfolder(name: str, parent: int) -> int | None:
    """The subfolder `name`, opened; made readable first where its owner locked it."""
    try:
        return os.open(name, FOLDER_FLAGS, dir_fd=parent)
    except PermissionError:
        facts = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISDIR(facts.st_mode):
            return None
        os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, FOLDER_FLAGS, dir_fd=parent)
    except (FileNotFoundError, NotADirectoryError):
        return None


def remove_folder(path: Path) -> bool:
    """Remove `path` and all it holds; whether it is gone. Never raises for what is in it."""
    try:
        fd = os.open(path, FOLDER_FLAGS)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    above: list[Level] = []
    try:
        subfolders = empty_files(fd)
        while True:
            if subfolders:
                name = subfolders.pop()
                child = open_subfolder(name, fd)
                if child is None:
                    continue
                above.append(Level(identity(fd), name, subfolders))
                os.close(fd)
                fd, subfolders = child, empty_files(child)
                continue
            if not above:
                break
            level = above.pop()
            parent = os.open("..", FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            if identity(fd) != level.identity:
                return False  # moved meanwhile: what is there now is not this tree
            with contextlib.suppress(FileNotFoundError):
                os.rmdir(level.name, dir_fd=fd)
            subfolders = level.subfolders
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True
