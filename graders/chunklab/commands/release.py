"""`chunklab release DIR`: write the student bundle, never over anything but an earlier one.

The bundle is written into a new folder beside DIR and moved into place at
the end, so a failed release leaves DIR as it was.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from chunklab.authoring.bundle import MARKER_FILE, is_release, write_bundle
from chunklab.errors import UsageError
from chunklab.kit import find_kit


def check_destination(dest: Path) -> None:
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{dest} is a file; give a folder to write the student bundle into")
    if dest.is_dir() and any(dest.iterdir()) and not is_release(dest):
        raise UsageError(
            f"{dest} is not empty and holds no earlier release (no {MARKER_FILE} file); "
            "give an empty or new folder, so nothing of yours is overwritten"
        )


def release_command(dest: Path) -> int:
    kit = find_kit()
    check_destination(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        files = write_bundle(kit, staging / "bundle")
        if dest.exists():
            shutil.rmtree(dest)
        (staging / "bundle").rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"wrote the student bundle to {dest} ({len(files)} files)")
    return 0
