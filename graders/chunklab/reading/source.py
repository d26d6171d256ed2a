"""What reading a submission produces: its lesson and the code cells to run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chunklab.contract import CodeCell
from chunklab.lessons import Lesson
from chunklab.scoring.report import Problem

# Cells tagged with this are the kit's own (self-check, demos) and are never graded.
KIT_CELL_TAG = "chunklab-kit"
# The cell that holds the exercise the student fills in.
EXERCISE_CELL_TAG = "chunklab-exercise"
# Where a notebook names its lesson: metadata["chunklab"]["lesson"].
NOTEBOOK_METADATA_KEY = "chunklab"


@dataclass(frozen=True)
class LeftBehind:
    """A module of the student's that is not handed to their code, and why."""

    name: str
    why: str


@dataclass(frozen=True)
class SubmissionSource:
    """A submission, read: the code to run, in order, and what was noticed on the way."""

    path: Path
    display: str
    kind: str  # "python" or "notebook"
    lesson: Lesson
    cells: tuple[CodeCell, ...]
    warnings: tuple[Problem, ...] = ()
    # Whose work it is (see reading/student.py).
    student: str = ""
    # The student's own modules that travel with the code (their imports are allowed).
    local_modules: tuple[str, ...] = ()
    # The student's own modules beside the graded file that do not travel with it (a
    # package, a file named for a lesson): their import is explained, not blocked.
    left_behind: tuple[LeftBehind, ...] = ()
