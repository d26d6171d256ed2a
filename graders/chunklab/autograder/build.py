"""Builds the Gradescope autograder zip of one lesson.

At the zip's root: `setup.sh` and `run_autograder` (Gradescope's autograder
specification asks for both there), the kit as a wheel built from this
checkout (so `setup.sh` installs nothing unpublished), the lesson's reference
solution and stub in `kit/`, and the settings `run_autograder` reads, with the
kit version and the digest of the suites and hidden inputs the wheel holds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import asdict
from pathlib import Path

from chunklab import __version__
from chunklab.errors import ChunklabError, KitLayoutError
from chunklab.kit import PACKAGE_DIR, Kit
from chunklab.lessons import LESSONS_DIR, Lesson
from chunklab.report_out.gradescope import GradescopeOptions
from chunklab.suites.digest import KitVersion, suites_digest

TEMPLATES = Path(__file__).resolve().parent
SCRIPTS = ("setup.sh", "run_autograder")
CONFIG_NAME = "chunklab_autograder.json"
KIT_FOLDER = "kit"
# What the wheel is built from: the package and the files its metadata names.
BUILD_INPUTS = ("pyproject.toml", "README.md")
LEFT_OUT = ("__pycache__", "*.pyc", "*.egg-info", ".pytest_cache")


class WheelBuildError(ChunklabError):
    """pip could not build the kit's wheel."""

    kind = "wheel_build"


def build_wheel(kit: Kit, dest: Path) -> Path:
    """The kit's wheel, built from a copy of the checkout (which stays untouched)."""
    with tempfile.TemporaryDirectory(prefix="chunklab-wheel-") as scratch:
        source = Path(scratch) / "source"
        source.mkdir()
        for name in BUILD_INPUTS:
            if not (kit.root / name).is_file():
                raise KitLayoutError(f"cannot build the kit's wheel: {kit.root / name} is missing")
            shutil.copy2(kit.root / name, source / name)
        shutil.copytree(
            kit.root / "graders", source / "graders", ignore=shutil.ignore_patterns(*LEFT_OUT)
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--quiet",
                "-w",
                str(dest.absolute()),
                ".",
            ],
            cwd=source,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise WheelBuildError(
                "pip could not build the kit's wheel:\n" + (done.stderr or done.stdout)[-2000:]
            )
    wheels = sorted(dest.glob("chunklab-*.whl"))
    if len(wheels) != 1:
        raise WheelBuildError(
            f"pip reported success but left {len(wheels)} chunklab wheels in {dest}:\n"
            + (done.stderr or done.stdout)[-2000:]
        )
    return wheels[0]


def wheel_suites(kit: Kit) -> Path:
    """The suites folder of the checkout the wheel is built from."""
    return kit.root / "graders" / LESSONS_DIR.relative_to(PACKAGE_DIR.parent)


def add_file(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    # Unix permissions: the scripts must run once unpacked, and nothing is for others to
    # read (setup.sh makes sure of it where the unzipping tool ignores these).
    info.external_attr = (0o100700 if executable else 0o100600) << 16
    archive.writestr(info, data)


def build_autograder(kit: Kit, lesson: Lesson, zip_path: Path, options: GradescopeOptions) -> None:
    """Write the autograder zip; written beside its destination, then moved into place."""
    # pip builds the wheel from a copy of the kit, in another folder: paths must not be relative.
    zip_path = zip_path.absolute()
    for path in (kit.solution(lesson), kit.exercise(lesson)):
        if not path.is_file():
            raise KitLayoutError(f"cannot build the autograder: {path} is missing")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chunklab-zip-", dir=zip_path.parent) as scratch:
        wheel = build_wheel(kit, Path(scratch))
        partial = Path(scratch) / zip_path.name
        with zipfile.ZipFile(partial, "w") as archive:
            for script in SCRIPTS:
                add_file(archive, script, (TEMPLATES / script).read_bytes(), executable=True)
            add_file(archive, wheel.name, wheel.read_bytes())
            # The suites and hidden inputs the wheel holds: run_autograder grades with no others.
            built_with = KitVersion(__version__, suites_digest(wheel_suites(kit)))
            config = {"lesson": lesson.id, **asdict(options), "kit": asdict(built_with)}
            add_file(archive, CONFIG_NAME, (json.dumps(config, indent=2) + "\n").encode())
            for folder, path in (
                ("solutions", kit.solution(lesson)),
                ("exercises", kit.exercise(lesson)),
            ):
                add_file(archive, f"{KIT_FOLDER}/{folder}/{path.name}", path.read_bytes())
        partial.replace(zip_path)
