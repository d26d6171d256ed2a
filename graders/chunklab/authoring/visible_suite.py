"""The public part of a lesson's grader suite: the tests marked visible, whatever file they are in.

Which tests are visible is what grading says (the `visibility` marker as pytest
collects it), never a file name. Each test file keeps its imports and helpers
and loses every test that is not visible, with its decorators and the comment
and blank lines right above it; a file left with no visible test is not written at all.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from chunklab.errors import KitLayoutError
from chunklab.kit import suite_dir
from chunklab.lessons import Lesson
from chunklab.running.pytest_run import SuiteTest, suite_tests


def without_definitions(source: str, names: set[str]) -> str:
    """`source` without the top-level functions or classes called `names`."""
    lines = source.splitlines(keepends=True)
    doomed: set[int] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name not in names:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            # The comments above a hidden test are part of it, and so is the space before it.
            while first > 0 and (
                not lines[first - 1].strip() or lines[first - 1].lstrip()[0] == "#"
            ):
                first -= 1
            doomed.update(range(first, node.end_lineno or node.lineno))
    return "".join(line for number, line in enumerate(lines) if number not in doomed)


def top_level_names(source: str) -> set[str]:
    return {
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def visible_sources(lesson: Lesson) -> dict[str, str]:
    """File name → the text a student gets, for each test file holding a visible test."""
    by_file: dict[Path, list[SuiteTest]] = defaultdict(list)
    for test in suite_tests(lesson):
        by_file[test.path].append(test)
    written = {}
    for path, tests in sorted(by_file.items()):
        shown = {t.name for t in tests if t.visibility == "visible"}
        hidden = {t.name for t in tests if t.visibility != "visible"}
        if mixed := shown & hidden:
            raise KitLayoutError(
                f"{path} has {', '.join(sorted(mixed))} holding both visible and hidden tests; "
                "put them in separate classes or functions"
            )
        if not shown:
            continue
        source = without_definitions(path.read_text(encoding="utf-8"), hidden)
        # What is left must define every visible test and no hidden one.
        names = top_level_names(source)
        if not shown <= names or names & hidden:
            raise KitLayoutError(f"the visible tests of {path} cannot be written out on their own")
        written[str(path.relative_to(suite_dir(lesson)))] = source
    return written
