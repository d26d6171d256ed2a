"""The rules a lesson's grader suite checks, read from its `rule` markers without running it.

The suite files are parsed with `ast`, so the notebook can state every rule,
hidden ones included, without importing test code. A rule's text is the
string in `pytest.mark.rule("...")`; it counts as public when at least one
test carrying it is marked `visibility("visible")`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from chunklab.errors import KitLayoutError
from chunklab.kit import suite_dir
from chunklab.lessons import Lesson


@dataclass(frozen=True)
class SuiteRule:
    text: str
    # Checked by at least one public test, so the self-check covers it.
    public: bool


@dataclass(frozen=True)
class MarkedRule:
    """One `rule` marker as found in a file."""

    text: str
    visibility: str | None
    where: str


def mark_name(node: ast.expr) -> str | None:
    """`rule` for `pytest.mark.rule(...)` (or `mark.rule(...)`), else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute | ast.Name):
        owner = node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id
        if owner == "mark":
            return node.attr
    return None


def marks_in(node: ast.expr) -> list[ast.Call]:
    """The marker calls in a decorator, a `pytestmark` value, or a `marks=` argument."""
    if isinstance(node, ast.List | ast.Tuple):
        return [call for item in node.elts for call in marks_in(item)]
    if isinstance(node, ast.Call) and mark_name(node) is not None:
        return [node]
    return []


def string_argument(call: ast.Call, where: str) -> str:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    # The notebook quotes rules word for word, so a rule must be a plain string.
    raise KitLayoutError(f"{where}: a rule/visibility marker must hold a plain string")


def visibility_of(calls: list[ast.Call], where: str) -> str | None:
    found = [string_argument(c, where) for c in calls if mark_name(c) == "visibility"]
    return found[-1] if found else None


class RuleFinder(ast.NodeVisitor):
    """Collects rule markers with the visibility that applies where each one sits."""

    def __init__(self, file_name: str, module_visibility: str | None) -> None:
        self.file_name = file_name
        self.visibility = [module_visibility]
        self.found: list[MarkedRule] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.visit_marked(node, [*node.decorator_list, *pytestmark_values(node.body)])

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.visit_marked(node, node.decorator_list)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_marked(node, node.decorator_list)

    def visit_marked(self, node: ast.AST, decorators: list[ast.expr]) -> None:
        where = f"{self.file_name}:{getattr(node, 'lineno', '?')}"
        calls = [call for decorator in decorators for call in marks_in(decorator)]
        self.visibility.append(visibility_of(calls, where) or self.visibility[-1])
        self.collect(calls, where)
        self.generic_visit(node)
        self.visibility.pop()

    def visit_Call(self, node: ast.Call) -> None:
        # `pytest.param(..., marks=pytest.mark.rule("..."))` inside a parametrize list.
        for keyword in node.keywords:
            if keyword.arg == "marks":
                where = f"{self.file_name}:{node.lineno}"
                calls = marks_in(keyword.value)
                visibility = visibility_of(calls, where) or self.visibility[-1]
                self.collect(calls, where, visibility)
        self.generic_visit(node)

    def collect(self, calls: list[ast.Call], where: str, visibility: str | None = None) -> None:
        for call in calls:
            if mark_name(call) == "rule":
                text = " ".join(string_argument(call, where).split())
                self.found.append(MarkedRule(text, visibility or self.visibility[-1], where))


def pytestmark_values(body: list[ast.stmt]) -> list[ast.expr]:
    """What `pytestmark = ...` assigns in a module's or a class's body."""
    return [
        statement.value
        for statement in body
        if isinstance(statement, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in statement.targets)
    ]


def module_visibility(tree: ast.Module, where: str) -> str | None:
    values = pytestmark_values(tree.body)
    return visibility_of([call for value in values for call in marks_in(value)], where)


def rules_in_file(path: Path) -> list[MarkedRule]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    finder = RuleFinder(path.name, module_visibility(tree, path.name))
    for statement in tree.body:
        finder.visit(statement)
    return finder.found


def suite_files(lesson: Lesson) -> list[Path]:
    """The suite's test files, public ones first, each group in name order."""
    files = sorted(suite_dir(lesson).glob("test_*.py"))
    return sorted(files, key=lambda path: "visible" not in path.name)


def suite_rules(lesson: Lesson) -> list[SuiteRule]:
    """Every rule the lesson's graders check, once each, in the order the suites state them."""
    marked = [rule for path in suite_files(lesson) for rule in rules_in_file(path)]
    order: dict[str, bool] = {}
    for rule in marked:
        order[rule.text] = order.get(rule.text, False) or rule.visibility == "visible"
    return [SuiteRule(text, public) for text, public in order.items()]
