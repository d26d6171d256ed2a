"""Reads an `.ipynb` submission with nbformat: the student's code cells, in order.

Cells the kit owns (tagged `chunklab-kit`: self-check, demos) are left out,
and so are IPython magics and shell lines, which are not Python.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chunklab.errors import BrokenNotebookError
from chunklab.reading.python_file import decode_text
from chunklab.reading.source import KIT_CELL_TAG, NOTEBOOK_METADATA_KEY, CodeCell


def preload_for(paths: list[Path]) -> None:
    """Import nbformat now when notebooks are coming: grading processes forked later
    then start with it, instead of each importing it on its own."""
    if any(path.suffix == ".ipynb" or path.is_dir() for path in paths):
        import nbformat  # noqa: F401


def load_notebook(path: Path, raw: bytes) -> Any:
    import nbformat  # slow to import; only notebooks need it

    text = decode_text(raw, path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BrokenNotebookError(
            f"{path.name} is not a valid notebook: its JSON breaks at line {error.lineno}, "
            f"column {error.colno} ({error.msg}); open it in Jupyter and save it again"
        ) from None
    # Notebooks before version 4 keep their cells in worksheets.
    if not isinstance(data, dict) or ("cells" not in data and "worksheets" not in data):
        raise BrokenNotebookError(
            f"{path.name} is JSON but not a Jupyter notebook (it has no cells); "
            "hand in the .ipynb file saved by Jupyter"
        )
    try:
        # Older notebook versions are converted to version 4. The schema is not
        # checked: a notebook that fails it in small ways (extra fields from other
        # tools) is still graded, and checking costs more than the rest of reading.
        return nbformat.convert(nbformat.from_dict(data), 4)
    except Exception as error:  # nbformat raises several kinds for malformed files
        raise BrokenNotebookError(
            f"{path.name} cannot be read as a notebook ({error}); "
            "open it in Jupyter and save it again"
        ) from None


def notebook_lesson(notebook: Any) -> str | None:
    """The lesson id a notebook names in its metadata, if any."""
    entry = notebook.get("metadata", {}).get(NOTEBOOK_METADATA_KEY)
    lesson = entry.get("lesson") if isinstance(entry, dict) else None
    return lesson if isinstance(lesson, str) else None


def without_magics(source: str) -> str:
    """Blanks IPython magic and shell lines, keeping line numbers for tracebacks."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        return ""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


def code_cells(notebook: Any) -> tuple[CodeCell, ...]:
    cells = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if KIT_CELL_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        cells.append(
            CodeCell(index=index, label=f"cell {index + 1}", source=without_magics(source))
        )
    return tuple(cells)


def read_notebook(path: Path, raw: bytes) -> tuple[tuple[CodeCell, ...], str | None]:
    notebook = load_notebook(path, raw)
    return code_cells(notebook), notebook_lesson(notebook)
