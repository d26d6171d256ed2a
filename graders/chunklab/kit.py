"""Where the kit's own files live: stubs, reference solutions, grader suites, notebooks."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from chunklab.errors import KitLayoutError
from chunklab.lessons import LESSONS_DIR, Lesson

PACKAGE_DIR = Path(__file__).resolve().parent
SUITES_DIR = LESSONS_DIR


def cache_dir() -> Path:
    """Where chunklab keeps what it can compute again: `$XDG_CACHE_HOME/chunklab`, else
    `~/.cache/chunklab`.

    A relative XDG_CACHE_HOME is ignored, as the XDG base directory spec asks: the
    sandbox's zygote reads the kit's texts from a working folder of its own.
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "chunklab"


def suite_dir(lesson: Lesson) -> Path:
    """The pytest grader suite of a lesson: its lesson folder (ships inside the package)."""
    return lesson.folder


@dataclass(frozen=True)
class Kit:
    """A checkout of the kit: the folders an instructor works in."""

    root: Path

    @property
    def exercises(self) -> Path:
        return self.root / "exercises"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def notebooks(self) -> Path:
        return self.root / "notebooks"

    def exercise(self, lesson: Lesson) -> Path:
        return self.exercises / lesson.file_name

    def solution(self, lesson: Lesson) -> Path:
        return self.solutions / lesson.file_name

    def mistakes(self, lesson: Lesson) -> Path:
        return self.solutions / "mistakes" / lesson.id

    def alternatives(self, lesson: Lesson) -> Path:
        return self.solutions / "alternatives" / lesson.id

    def notebook(self, lesson: Lesson) -> Path:
        return self.notebooks / f"{lesson.id}.ipynb"


def load_reference(kit: Kit, lesson: Lesson) -> ModuleType:
    """The reference solution, as a module of the grading process (never of a worker)."""
    path = kit.solution(lesson)
    spec = importlib.util.spec_from_file_location(f"chunklab_reference_{lesson.id}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise KitLayoutError(f"the reference solution {path} is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_kit() -> Kit:
    """The kit checkout this package belongs to: the folder holding `graders/chunklab`.

    Found from where the package's own files are, never from the working
    folder or its parents: a class folder that holds student-made
    `solutions/` or `exercises/` is never taken for the kit, and no file of
    it is run as a reference solution in the grading process.
    """
    root = PACKAGE_DIR.parent.parent
    if (root / "solutions").is_dir() and (root / "exercises").is_dir():
        return Kit(root)
    raise KitLayoutError(
        f"the kit's solutions/ and exercises/ folders are not beside this chunklab package "
        f"({PACKAGE_DIR}); install chunklab from a checkout of the kit, with `pip install -e .` "
        "in it, and run the command with that installation"
    )
