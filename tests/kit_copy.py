"""A throw-away copy of the kit, and `chunklab` run from it as a teacher would run it there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import KIT_ROOT

KIT_PARTS = ("graders/chunklab", "exercises", "solutions", "notebooks")


def copy_kit(dest: Path) -> Path:
    """The kit's folders and pyproject under `dest`, without caches or build leftovers."""
    for part in KIT_PARTS:
        shutil.copytree(
            KIT_ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    shutil.copyfile(KIT_ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def run_chunklab(kit: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """`chunklab ARGS` with the copy's own package, from the copy's folder."""
    return run_module(kit, "chunklab", *args)


def run_module(
    kit: Path, module: str, *args: str | Path, timeout: float = 300
) -> subprocess.CompletedProcess:
    """`python -m MODULE ARGS` with the copy's own package, from the copy's folder."""
    env = {**os.environ, "PYTHONPATH": str(kit / "graders")}
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
