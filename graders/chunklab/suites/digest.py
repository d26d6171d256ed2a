"""What a grade depends on besides the submission: the kit's version and the digest of its suites.

The digest covers every file of the grader suites (the tests, their helpers,
the lessons' declarations and rules, and the hidden inputs kept as data), so
two installs that could grade a submission differently never carry the same
one. Every report names it, and so do the Dask version stamp and the
Gradescope autograder.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from chunklab import __version__
from chunklab.lessons import LESSONS_DIR

# The kinds of file a suite is made of: what the package ships (its package data).
SUITE_FILES = (".py", ".json", ".md", ".ini")


@dataclass(frozen=True)
class KitVersion:
    """The kit that graded a report: its version and the digest of its suites and inputs."""

    version: str
    suites: str


def suites_digest(folder: Path = LESSONS_DIR) -> str:
    """SHA-256 over every suite file, by its path in the folder, its size and its bytes.

    The same in a checkout and in the wheel built from it: caches and hidden
    folders (`__pycache__`, `.pytest_cache`) are not part of a suite.
    """
    digest = hashlib.sha256()
    named = sorted(
        (path.relative_to(folder).as_posix(), path)
        for path in folder.rglob("*")
        if path.suffix in SUITE_FILES and path.is_file()
    )
    for name, path in named:
        if not any(part.startswith((".", "__pycache__")) for part in name.split("/")):
            data = path.read_bytes()
            digest.update(f"{name}\0{len(data)}\0".encode())
            digest.update(data)
    return "sha256:" + digest.hexdigest()


@functools.cache
def this_kit() -> KitVersion:
    """The kit this process grades with (worked out once: the suites do not change mid-run)."""
    return KitVersion(__version__, suites_digest())
