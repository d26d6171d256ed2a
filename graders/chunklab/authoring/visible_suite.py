"""The public part of a lesson's grader suite: what the visible tests need, and nothing else.

Which tests are visible is what grading says (the `visibility` marker as pytest
collects it), never a file name. Of each test file, a student gets the
statements the visible tests reference, followed name by name (Python's own
`symtable` says which names a function reads from the module): the visible
tests, the helpers, constants and imports they use, and what those use in
turn. Whatever only hidden tests use (their inputs, parametrize lists, tests
made by a factory or by assignment) is left out because nothing visible
needs it, not because it was recognised as hidden. A statement goes with the
comments and blank lines right above it; a file with no visible test is not
written at all.
"""

from __future__ import annotations

import ast
import symtable
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from chunklab.errors import KitLayoutError
from chunklab.kit import suite_dir
from chunklab.lessons import Lesson
from chunklab.suite_run.suite_contents import SuiteTest, suite_contents

# Module-level names pytest reads by itself: a file keeps the statements that bind them.
PYTEST_NAMES = ("pytestmark", "pytest_plugins")
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def module_level_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a statement that run in the module's scope (not inside a def or lambda)."""
    yield node
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        parts: list[ast.AST] = [*node.decorator_list, node.args]
        parts += [node.returns] if node.returns else []
    elif isinstance(node, ast.ClassDef):
        parts = [*node.decorator_list, *node.bases, *node.keywords]
    elif isinstance(node, ast.Lambda):
        parts = [node.args]
    else:
        parts = list(ast.iter_child_nodes(node))
    for part in parts:
        yield from module_level_nodes(part)


def bound_names(statement: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    names: set[str] = set()
    for node in module_level_nodes(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
    return names


def scope_reads(table: symtable.SymbolTable) -> set[str]:
    """Module names a function, class or lambda scope reads (nested scopes included).

    A function's parameters count too: pytest hands fixtures to tests by their name.
    """
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
    if isinstance(table, symtable.Function):
        names.update(table.get_parameters())
    for child in table.get_children():
        names |= scope_reads(child)
    return names


def statement_reads(
    statement: ast.stmt, scopes: list[symtable.SymbolTable], known: set[str]
) -> set[str]:
    """The module names a top-level statement reads, at once or when its functions run."""
    names = {
        node.id
        for node in module_level_nodes(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    # A fixture named in a string (`usefixtures("name")`) is read too.
    names |= {
        node.value
        for node in ast.walk(statement)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known
    }
    last = statement.end_lineno or statement.lineno
    for table in scopes:
        if statement.lineno <= table.get_lineno() <= last:
            names |= scope_reads(table)
    return names


def is_root(statement: ast.stmt, visible: set[str], bound: set[str]) -> bool:
    """A statement kept for its own sake: a visible test, a future import, what pytest reads."""
    if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
        return True
    if bound & visible or bound & set(PYTEST_NAMES):
        return True
    if any(name.startswith("pytest_") for name in bound):
        return True  # a hook
    return isinstance(statement, ast.FunctionDef) and any(
        isinstance(d, ast.Call)
        and any(k.arg == "autouse" for k in d.keywords)
        and "fixture" in ast.unparse(d.func)
        for d in statement.decorator_list
    )


def needed_statements(source: str, visible: set[str]) -> set[int]:
    """Which top-level statements (their places in the file) the visible tests need."""
    tree = ast.parse(source)
    body = tree.body
    docstring = ast.get_docstring(tree, clean=False) is not None
    bound = [bound_names(statement) for statement in body]
    known = set().union(*bound)
    binders: dict[str, list[int]] = defaultdict(list)
    for index, names in enumerate(bound):
        for name in names:
            binders[name].append(index)
    scopes = symtable.symtable(source, "<suite>", "exec").get_children()
    wanted = [
        index
        for index, statement in enumerate(body)
        if is_root(statement, visible, bound[index]) or (index == 0 and docstring)
    ]
    kept: set[int] = set()
    while wanted:
        index = wanted.pop()
        if index in kept:
            continue
        kept.add(index)
        for name in statement_reads(body[index], scopes, known):
            wanted.extend(binders.get(name, ()))
    return kept


def only_statements(source: str, kept: set[int]) -> str:
    """`source` without the top-level statements not `kept`, each with its comments."""
    lines = source.splitlines(keepends=True)
    body = ast.parse(source).body
    keep_lines = {
        n for k in kept for n in range(body[k].lineno - 1, body[k].end_lineno or body[k].lineno)
    }
    doomed: set[int] = set()
    for index, statement in enumerate(body):
        if index in kept:
            continue
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)]) - 1
        # The comments above a statement are part of it, and so is the space before it.
        while first > 0 and (not lines[first - 1].strip() or lines[first - 1].lstrip()[0] == "#"):
            first -= 1
        doomed.update(range(first, statement.end_lineno or statement.lineno))
    doomed -= space_between_neighbours(lines, doomed)
    if shared := sorted(doomed & keep_lines):
        raise KitLayoutError(
            f"line {shared[0] + 1} holds a statement the visible tests need and one they do "
            "not; put each statement on a line of its own"
        )
    return "".join(line for number, line in enumerate(lines) if number not in doomed)


def space_between_neighbours(lines: list[str], doomed: set[int]) -> set[int]:
    """The blank lines that start a removed run of lines followed by code that stays.

    They separated the statement before the run from the one after it, and still do.
    """
    kept_space: set[int] = set()
    for number in sorted(doomed):
        if number - 1 in doomed:
            continue  # not the start of a run
        end = number
        while end in doomed:
            end += 1
        if end < len(lines) and lines[end].strip():
            while number < end and not lines[number].strip():
                kept_space.add(number)
                number += 1
    return kept_space


def visible_part(source: str, visible: set[str], hidden: set[str], path: Path) -> str:
    """What a student gets of one test file: the visible tests and what they need."""
    written = only_statements(source, needed_statements(source, visible))
    names = set().union(*map(bound_names, ast.parse(written).body))
    if not visible <= names or names & hidden:
        needed = ", ".join(sorted(names & hidden)) or "every visible test"
        raise KitLayoutError(
            f"the visible tests of {path} cannot be written out on their own (they need "
            f"{needed}); a visible test must not use a hidden one"
        )
    return written


def visible_sources(lesson: Lesson) -> dict[str, str]:
    """File name → the text a student gets, for each test file holding a visible test."""
    by_file: dict[Path, list[SuiteTest]] = defaultdict(list)
    for test in suite_contents(lesson).tests:
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
        source = path.read_text(encoding="utf-8")
        written[str(path.relative_to(suite_dir(lesson)))] = visible_part(
            source, shown, hidden, path
        )
    return written
