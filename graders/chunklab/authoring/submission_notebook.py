"""Turns code into a lesson notebook submission: the lesson notebook, its exercise cell replaced.

Used to grade `.py` solutions and mistakes as notebooks too, and to make samples.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

from chunklab.authoring.build_notebooks import build_notebook, notebook_text
from chunklab.errors import KitLayoutError
from chunklab.kit import Kit
from chunklab.lessons import get_lesson
from chunklab.reading.source import EXERCISE_CELL_TAG


def submission_notebook(lesson_id: str, code: str, kit: Kit | None = None) -> NotebookNode:
    notebook = build_notebook(get_lesson(lesson_id), kit)
    exercise = [c for c in notebook.cells if EXERCISE_CELL_TAG in c.metadata.get("tags", [])]
    if len(exercise) != 1:
        raise KitLayoutError(f"the {lesson_id} notebook must have exactly one exercise cell")
    exercise[0].source = code.strip("\n")
    nbformat.validate(notebook)
    return notebook


def write_submission_notebook(lesson_id: str, code: str, path: Path) -> Path:
    """Write the lesson's notebook to `path` with `code` in its exercise cell."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notebook_text(submission_notebook(lesson_id, code)), encoding="utf-8")
    return path
