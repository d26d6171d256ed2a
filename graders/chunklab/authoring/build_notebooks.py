"""Builds each lesson's notebook from one source, so stub, notebook and release never drift.

The prose and demos come from the lesson folder's `rules.md`, the exercise cell is
the stub in `exercises/<lesson>.py`, and the rules are the `rule` markers of
the grader suites. Run `python -m chunklab.authoring.build_notebooks` after
changing any of them; `--check` only reports notebooks that are out of date.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

from chunklab.authoring.lesson_source import (
    Exercise,
    Hint,
    KitCode,
    Markdown,
    Part,
    Rules,
    SelfCheck,
    read_lesson_text,
)
from chunklab.authoring.rule_list import rules_markdown
from chunklab.kit import Kit, find_kit
from chunklab.lessons import LESSONS, Lesson
from chunklab.reading.source import EXERCISE_CELL_TAG, KIT_CELL_TAG, NOTEBOOK_METADATA_KEY
from chunklab.suite_run.suite_contents import suite_contents

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def self_check_source(lesson: Lesson) -> str:
    return (
        "# Runs the public checks on what you defined above; it changes nothing.\n"
        "from chunklab.student.selfcheck import self_check\n"
        "\n"
        f'self_check("{lesson.id}", globals())'
    )


def exercise_source(stub: str) -> str:
    """The stub as the exercise cell, with what only makes sense in a file taken out.

    - An `if __name__ == "__main__":` block would run in a notebook (its `__name__`
      is "__main__") and fail on the unwritten function: it is dropped.
    - `from __future__` imports are only allowed in a notebook's first cell; the
      kernel (Python 3.10+) needs none for the stub's annotations: dropped.
    - The module docstring becomes comments, so the imports still open the cell.
    """
    tree = ast.parse(stub)
    docstring = ast.get_docstring(tree)
    lines = stub.splitlines()
    replaced: dict[int, list[str]] = {}
    for statement in tree.body:
        span = range(statement.lineno - 1, statement.end_lineno or statement.lineno)
        if file_only(statement) or (statement is tree.body[0] and docstring is not None):
            replaced.update({index: [] for index in span})
    if docstring is not None:
        comment = [f"# {line}".rstrip() for line in docstring.splitlines()]
        replaced[tree.body[0].lineno - 1] = comment
    kept = [new for index, line in enumerate(lines) for new in replaced.get(index, [line])]
    # Two blank lines at most where something was taken out; no newline at the end, as
    # Jupyter (and ruff's notebook formatting) keeps cell sources.
    return re.sub(r"\n{4,}", "\n\n\n", "\n".join(kept)).strip()


def file_only(statement: ast.stmt) -> bool:
    """A `__main__` block or a `from __future__` import."""
    if isinstance(statement, ast.If):
        return "__main__" in ast.unparse(statement.test)
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def hint_markdown(number: int, hint: Hint) -> str:
    # Blank lines inside <details> let Jupyter render the Markdown in it.
    return (
        f"<details>\n<summary><b>Hint {number}: {hint.title}</b></summary>\n\n"
        f"{hint.text}\n\n</details>"
    )


def cell_for(
    part: Part, lesson: Lesson, stub: str, rules_text: str, hint_number: int
) -> NotebookNode:
    if isinstance(part, Markdown):
        return nbformat.v4.new_markdown_cell(part.text)
    if isinstance(part, Hint):
        return nbformat.v4.new_markdown_cell(hint_markdown(hint_number, part))
    if isinstance(part, Rules):
        return nbformat.v4.new_markdown_cell(rules_text)
    if isinstance(part, KitCode):
        return nbformat.v4.new_code_cell(part.source, metadata={"tags": [KIT_CELL_TAG]})
    if isinstance(part, Exercise):
        return nbformat.v4.new_code_cell(
            exercise_source(stub), metadata={"tags": [EXERCISE_CELL_TAG]}
        )
    if isinstance(part, SelfCheck):
        return nbformat.v4.new_code_cell(
            self_check_source(lesson), metadata={"tags": [KIT_CELL_TAG]}
        )
    raise TypeError(f"unknown lesson part {part!r}")


def cell_id(part: Part, counts: dict[str, int]) -> str:
    """Ids that stay put when an unrelated cell changes: a kind and its count."""
    kind = {
        Markdown: "text",
        KitCode: "kit",
        Rules: "rules",
        Exercise: "exercise",
        SelfCheck: "self-check",
        Hint: "hint",
    }[type(part)]
    counts[kind] = counts.get(kind, 0) + 1
    return kind if kind in ("rules", "exercise", "self-check") else f"{kind}-{counts[kind]}"


def build_notebook(lesson: Lesson, kit: Kit | None = None) -> NotebookNode:
    """The lesson's notebook, in memory, with no outputs."""
    kit = kit or find_kit()
    stub = kit.exercise(lesson).read_text(encoding="utf-8")
    parts = read_lesson_text(lesson.id)
    rules = next(part for part in parts if isinstance(part, Rules))
    rules_text = rules_markdown(suite_contents(lesson).rules(), rules.groups)
    notebook = nbformat.v4.new_notebook()
    counts: dict[str, int] = {}
    for part in parts:
        cell = cell_for(part, lesson, stub, rules_text, counts.get("hint", 0) + 1)
        cell["id"] = cell_id(part, counts)
        notebook.cells.append(cell)
    notebook.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
        NOTEBOOK_METADATA_KEY: {"lesson": lesson.id},
    }
    nbformat.validate(notebook)
    return notebook


def notebook_text(notebook: NotebookNode) -> str:
    return nbformat.writes(notebook) + "\n"


def stale_notebooks(kit: Kit | None = None) -> list[Path]:
    """The committed notebooks that differ from what their sources build."""
    kit = kit or find_kit()
    stale = []
    for lesson in LESSONS.values():
        path = kit.notebook(lesson)
        fresh = notebook_text(build_notebook(lesson, kit))
        if not path.is_file() or path.read_text(encoding="utf-8") != fresh:
            stale.append(path)
    return stale


def write_notebooks(kit: Kit | None = None) -> list[Path]:
    kit = kit or find_kit()
    kit.notebooks.mkdir(exist_ok=True)
    written = []
    for lesson in LESSONS.values():
        path = kit.notebook(lesson)
        path.write_text(notebook_text(build_notebook(lesson, kit)), encoding="utf-8")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chunklab.authoring.build_notebooks",
        description="Build notebooks/<lesson>.ipynb from the lesson texts, stubs and suites.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a committed notebook is out of date",
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_notebooks()
        for path in stale:
            print(f"out of date: {path} (run python -m chunklab.authoring.build_notebooks)")
        return 1 if stale else 0
    for path in write_notebooks():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
