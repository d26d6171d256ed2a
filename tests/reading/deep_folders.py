"""Folders nested deeper than a path may be long: made and removed through handles."""

from __future__ import annotations

import os
from pathlib import Path


def nested(top: Path, depth: int, name: str = "d") -> None:
    """`depth` folders, one inside the other, made through handles (no path grows long)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
    finally:
        os.close(fd)


def unnest(top: Path, name: str = "d") -> None:
    """Remove the folders `nested` made, one level at a time (a recursive removal would fail)."""
    chain, lifted = top / name, top / f"{name}.lifted"
    while chain.exists():
        if (chain / name).exists():
            (chain / name).rename(lifted)
            chain.rmdir()
            lifted.rename(chain)
        else:
            chain.rmdir()
