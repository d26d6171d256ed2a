"""The package's parts import one another in one direction only: no cycle between them.

A part is a sub-package (`sandbox`, `running`, ...) or a top-level module
(`grading`, `batch`, ...). The contract the grading side and the worker
share sits at the bottom and imports nothing of the package.
"""

from __future__ import annotations

import ast
import subprocess
import sys

from chunklab.kit import PACKAGE_DIR


def part_of(module: str) -> str:
    """`chunklab.sandbox.worker` → `sandbox`; `chunklab.grading` → `grading`."""
    names = module.split(".")
    return names[1] if len(names) > 1 else "chunklab"


def imports_between_parts() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        relative = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
        importer = part_of(".".join(relative.parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                if module.startswith("chunklab.") and part_of(module) != importer:
                    graph.setdefault(importer, set()).add(part_of(module))
    return graph


def a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in the graph, as the parts along it, or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == "open":
                return path[path.index(after) :] + [after]
            if after not in state and (found := visit(after)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_two_parts_of_the_package_import_each_other():
    assert a_cycle(imports_between_parts()) is None


def test_the_contract_imports_nothing_of_the_package():
    assert "contract" not in imports_between_parts()
    # The sandbox and the suite runner meet through it, not through each other's modules.
    graph = imports_between_parts()
    assert "contract" in graph["sandbox"] and "contract" in graph["running"]
    assert "running" not in graph["sandbox"]


def test_the_cycle_finder_finds_a_cycle():
    assert a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert a_cycle({"a": {"b"}, "b": {"c"}}) is None


# What grading one submission to stdout never needs: the class's pages and tallies, code
# similarity, the lesson texts Gradescope's groups come from, other grading processes.
ONLY_FOR_CLASS_FILES = (
    "chunklab.writing.class_outputs",
    "chunklab.writing.class_report",
    "chunklab.writing.feedback_page",
    "chunklab.similarity",
    "chunklab.resume",
    "chunklab.writing.lms",
    "chunklab.authoring.lesson_source",
    "multiprocessing",
)


def test_the_grade_command_starts_without_what_only_class_files_need():
    probe = (
        "import sys\n"
        "import chunklab.cli, chunklab.commands.grade\n"
        "chunklab.cli.build_parser()\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    loaded = set(done.stdout.split())
    assert "chunklab.commands.grade" in loaded, done.stderr
    assert sorted(loaded & set(ONLY_FOR_CLASS_FILES)) == []
