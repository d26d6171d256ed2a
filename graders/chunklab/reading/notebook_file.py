"""Reads an `.ipynb` submission: the student's code cells, in order.

A notebook is JSON a student's tools wrote, or anyone did, so its shape is
checked here, field by field, before anything is taken from it: a notebook
that is not shaped like one is the student's `broken_notebook`, never a fault
of the grader. Only the fields that grading needs are looked at; outputs,
attachments and everything else are left alone.

Cells the kit owns (tagged `chunklab-kit`: self-check, demos) are left out, and so
are copies of them without the tag (`only_kit_calls`).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunklab.errors import BrokenNotebookError, SubmissionTooLargeError
from chunklab.reading.lesson_of import metadata_lesson
from chunklab.reading.magics import CellCode, strip_magics
from chunklab.reading.python_file import decode_text
from chunklab.reading.source import KIT_CELL_TAG, CodeCell
from chunklab.scoring.report import Problem

SAVE_AGAIN = "open it in Jupyter and save it again"
CLEAR_OUTPUTS = (
    "clear its outputs (Edit > Clear Outputs of All Cells), save it and hand it in again"
)
# Parsed JSON can take 20 times its size in memory when made of tiny values
# (`[{},{},...]`). Every value but a container's first follows a comma, so commas
# and containers, counted in the raw bytes before parsing (those in text count
# too), bound the values, and the memory parsing takes, whatever the file holds.
MOST_JSON_VALUES = 1_000_000
# The size limit counts a submission's code (`--max-submission-kb`); a notebook's
# file may be this much larger for its outputs and attachments, which are not code.
# Bounded, because parsing a notebook's JSON holds several times its size in memory.
NOTEBOOK_OUTPUTS_BYTES = 16 * 1024 * 1024
# A lesson notebook has about twenty cells, and a student adds some: a notebook of more
# than this is refused before it is parsed, so reading it costs what a normal one does.
# Each cell names its type once (`"cell_type"`, a key never escaped), so the count of
# that key in the raw bytes is at least the number of cells.
MOST_CELLS = 1_000


@dataclass(frozen=True)
class NotebookCode:
    """What grading takes from a notebook."""

    cells: tuple[CodeCell, ...]
    lesson: str | None
    warnings: tuple[Problem, ...]
    # The size of the code cells' sources in UTF-8: what the size limit counts.
    code_bytes: int


def load_json(path: Path, raw: bytes) -> Any:
    if raw.count(b",") + raw.count(b"{") + raw.count(b"[") > MOST_JSON_VALUES:
        raise SubmissionTooLargeError(
            f"{path.name} holds more than {MOST_JSON_VALUES:,} JSON values; {CLEAR_OUTPUTS}"
        )
    if raw.count(b'"cell_type"') > MOST_CELLS:
        raise SubmissionTooLargeError(
            f"{path.name} holds more than {MOST_CELLS:,} cells, more than a lesson's notebook "
            "ever needs: hand in the lesson's notebook with your solution in it"
        )
    text = decode_text(raw, path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise BrokenNotebookError(
            f"{path.name} is not a valid notebook: its JSON breaks at line {error.lineno}, "
            f"column {error.colno} ({error.msg}); {SAVE_AGAIN}"
        ) from None
    except RecursionError:
        raise BrokenNotebookError(
            f"{path.name} is not a valid notebook: its JSON is nested too deeply; {SAVE_AGAIN}"
        ) from None
    except MemoryError:  # values are bounded above; this keeps the run alive all the same
        raise SubmissionTooLargeError(
            f"{path.name} is too large to read as a notebook; {CLEAR_OUTPUTS}"
        ) from None
    except ValueError as error:  # a number too long to read, for one
        raise BrokenNotebookError(
            f"{path.name} is not a valid notebook ({error}); {SAVE_AGAIN}"
        ) from None


def broken(path: Path, what: str) -> BrokenNotebookError:
    return BrokenNotebookError(f"{path.name} is not shaped like a notebook: {what}; {SAVE_AGAIN}")


def raw_cells(path: Path, data: Any) -> list[tuple[Any, str]]:
    """Every cell and the field that holds its code, checked to be a list of dicts.

    Version 4 keeps its cells in `cells` (code in `source`), version 3 in
    `worksheets` (code in `input`); older versions and newer ones are refused.
    """
    if not isinstance(data, dict) or ("cells" not in data and "worksheets" not in data):
        raise BrokenNotebookError(
            f"{path.name} is JSON but not a Jupyter notebook (it has no cells); "
            "hand in the .ipynb file saved by Jupyter"
        )
    version = data.get("nbformat", 4 if "cells" in data else 3)
    if type(version) is not int or version not in (3, 4):
        raise BrokenNotebookError(
            f"{path.name} cannot be read as a notebook (its format version is "
            f"{str(version)[:20]!r}, and only versions 3 and 4 are read); {SAVE_AGAIN}"
        )
    if not isinstance(data.get("metadata", {}), dict):
        raise broken(path, "its metadata is not a mapping")
    if version == 4:
        cells = data.get("cells")
        if not isinstance(cells, list):
            raise broken(path, "its cells are not a list")
        found = [(cell, "source") for cell in cells]
    else:
        worksheets = data.get("worksheets")
        if not isinstance(worksheets, list) or not all(
            isinstance(sheet, dict) and isinstance(sheet.get("cells", []), list)
            for sheet in worksheets
        ):
            raise broken(path, "its worksheets are not a list of cell lists")
        found = [(cell, "input") for sheet in worksheets for cell in sheet.get("cells", [])]
    for number, (cell, _) in enumerate(found, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise broken(path, f"cell {number} is not a notebook cell")
    return found


def cell_source(path: Path, number: int, cell: dict[str, Any], field: str) -> str | None:
    """A student's code cell's text, or None for a cell that is not graded."""
    if cell["cell_type"] != "code":
        return None
    metadata = cell.get("metadata", {})
    if not isinstance(metadata, dict):
        raise broken(path, f"the metadata of cell {number} is not a mapping")
    tags = metadata.get("tags", [])
    if not isinstance(tags, list):
        raise broken(path, f"the tags of cell {number} are not a list")
    if KIT_CELL_TAG in tags:
        return None
    source = cell.get(field, "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise broken(path, f"the code of cell {number} is not text")
    return source


# The package of the kit's helpers a lesson notebook's own cells import.
KIT_HELPERS = "chunklab.student"
KIT_CELL_WARNING = "kit_cell_skipped"
UNTAGGED_KIT_CELL = (
    "is a cell of the kit's (its self-check, or a demo's display) without the kit's tag, "
    "copied perhaps; it was left out, as the kit's own cells are."
)


def only_kit_calls(source: str) -> bool:
    """Whether a cell only imports the kit's helpers and calls what it imported, as the
    notebook's own self-check and demo cells do: such a cell copied without its tag
    is the kit's all the same, and an import a submission may not make otherwise."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    imported: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.level == 0:
            module = statement.module or ""
            if module != KIT_HELPERS and not module.startswith(f"{KIT_HELPERS}."):
                return False
            imported |= {alias.asname or alias.name for alias in statement.names}
        elif not (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id in imported | {"display", "print"}
        ):
            return False
    return bool(imported)


def read_notebook(path: Path, raw: bytes) -> NotebookCode:
    data = load_json(path, raw)
    found = raw_cells(path, data)
    cells: list[CodeCell] = []
    warnings: list[Problem] = []
    code_bytes = 0
    for index, (cell, field) in enumerate(found):
        source = cell_source(path, index + 1, cell, field)
        if source is None:
            continue
        try:
            code_bytes += len(source.encode("utf-8"))
        except UnicodeEncodeError:
            raise broken(path, f"cell {index + 1} holds text that is not valid Unicode") from None
        label = f"cell {index + 1}"
        if only_kit_calls(source):
            warnings.append(Problem(KIT_CELL_WARNING, f"{label} {UNTAGGED_KIT_CELL}"))
            continue
        code: CellCode = strip_magics(source, label)
        cells.append(CodeCell(index=index, label=label, source=code.source))
        warnings += code.warnings
    return NotebookCode(tuple(cells), metadata_lesson(data), tuple(warnings), code_bytes)
