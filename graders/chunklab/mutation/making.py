"""The mutants of a reference solution: cosmic-ray's operators, then the classic ones it lacks.

cosmic-ray's `mutate_code` turns source into mutated source without any of its
session machinery (no database, no test runner), and its operators are the most
thorough of the well-kept libraries: every binary operator into every other one
(`lowest - 1` into `lowest | 1` as well as `lowest + 1`), every comparison into
every other one, numbers moved by one, `break` and `continue` swapped, loops that
never run. The classic operators here add what it has not: a statement removed,
a slice bound moved by one, `split()` made `split(" ")`, `isspace()` made a test
for a space, a string constant emptied or given a letter and a digit.

Mutants that do not compile, and mutants that are the reference or another
mutant once parsed, are dropped.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from chunklab.errors import MutationLibraryMissingError

# Operators that need arguments of their own (a variable to name), made for other uses.
SKIPPED_OPERATORS = ("core/VariableReplacer", "core/VariableInserter")


@dataclass(frozen=True)
class Mutant:
    """One small change of a lesson's reference, as the source it makes."""

    lesson: str
    number: int
    operator: str
    line: int
    source: str
    diff: str

    @property
    def key(self) -> str:
        """Names the change by what it changes, not by where: stable while other lines move."""
        changed = [line for line in self.diff.splitlines() if line[:1] in "+-"]
        text = "\n".join(line[:1] + line[1:].strip() for line in changed)
        return hashlib.sha256(f"{self.lesson}\n{text}".encode()).hexdigest()[:12]

    @property
    def name(self) -> str:
        return f"m{self.number:03d}_{self.lesson}"


def mutants_of(lesson: str, reference: str, touching: str | None = None) -> list[Mutant]:
    """Every distinct, compiling mutant of `reference`, numbered in the order they were made.

    With `touching`, only the mutants of the nodes that start on a line holding it.
    """
    lines = reference.splitlines()

    def wanted(line: int) -> bool:
        return touching is None or touching in lines[line - 1]

    seen = {parsed(reference)}
    found: list[Mutant] = []
    for operator, source in [
        *library_mutants(reference, wanted),
        *classic_mutants(reference, wanted),
    ]:
        shape = parsed(source)
        if shape is None or shape in seen or not compiles(source):
            continue
        seen.add(shape)
        line, diff = difference(reference, source)
        found.append(Mutant(lesson, len(found), operator, line, source, diff))
    return found


def parsed(source: str) -> str | None:
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return None


def compiles(source: str) -> bool:
    try:
        compile(source, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def difference(reference: str, source: str) -> tuple[int, str]:
    """The first changed line (from 1) and the diff, with one line of context."""
    old, new = reference.splitlines(), source.splitlines()
    pairs = enumerate(zip(old, new, strict=False))
    first = next((k for k, (was, now) in pairs if was != now), min(len(old), len(new)))
    diff = difflib.unified_diff(old, new, "reference", "mutant", n=1, lineterm="")
    return first + 1, "\n".join(list(diff)[2:])


def library_mutants(reference: str, wanted: Callable[[int], bool]) -> Iterator[tuple[str, str]]:
    """(operator, source) for every place each cosmic-ray operator applies."""
    try:
        from cosmic_ray.ast import ast_nodes, get_ast
        from cosmic_ray.mutating import mutate_code
        from cosmic_ray.plugins import get_operator, operator_names
    except ImportError:
        raise MutationLibraryMissingError(
            "mutants are made with cosmic-ray, which is not installed: "
            "pip install -e '.[mutants]' (it comes with '.[test]' too)"
        ) from None
    # Parsed once to count where each operator applies: most apply nowhere.
    nodes = list(ast_nodes(get_ast(reference)))
    for name in operator_names():
        if name.startswith(SKIPPED_OPERATORS):
            continue
        operator = get_operator(name)()
        places = [node.start_pos[0] for node in nodes for _ in operator.mutation_positions(node)]
        for occurrence, line in enumerate(places):
            source = mutate_code(reference, operator, occurrence) if wanted(line) else None
            if source is not None:
                yield name.removeprefix("core/"), source


def classic_mutants(reference: str, wanted: Callable[[int], bool]) -> Iterator[tuple[str, str]]:
    """(operator, source) for the classic operators cosmic-ray has not."""
    tree = ast.parse(reference)
    edit = Editor(reference)
    docstrings = {id(node) for node in docstring_nodes(tree)}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None or not wanted(line):
            continue
        if isinstance(node, ast.stmt) and removable(node, docstrings):
            yield "RemoveStatement", edit(node, "pass")
        if isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                if bound is not None:
                    text = edit.text(bound)
                    yield "MoveSliceBound", edit(bound, f"{text} + 1")
                    yield "MoveSliceBound", edit(bound, f"{text} - 1")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield from string_method_mutants(node, edit)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and not edit.text(node).startswith(("f", "F"))
        ):
            if node.value:
                yield "EmptyString", edit(node, "''")
            yield "StringGainsCharacters", edit(node, repr(f"X{node.value}1"))


def string_method_mutants(node: ast.Call, edit: Editor) -> Iterator[tuple[str, str]]:
    assert isinstance(node.func, ast.Attribute)
    owner = edit.text(node.func.value)
    if node.func.attr == "split" and not node.args and not node.keywords:
        yield "SplitOnSpace", edit(node, f"{owner}.split(' ')")
    if node.func.attr == "isspace" and not node.args:
        yield "SpaceForIsspace", edit(node, f"({owner} == ' ')")
        yield "AsciiWhitespaceForIsspace", edit(node, f"({owner} in ' \\t\\n\\r\\x0b\\x0c')")


def docstring_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield body[0]
                yield value


def removable(node: ast.stmt, docstrings: set[int]) -> bool:
    """A statement whose removal changes what runs: not a docstring, an import or a definition."""
    kept = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Pass)
    return not isinstance(node, kept) and id(node) not in docstrings


class Editor:
    """Replaces the source text of one node, leaving every other character as it was."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: Any) -> tuple[int, int]:
        start = self.starts[node.lineno - 1] + utf8_column(self.line(node.lineno), node.col_offset)
        end_line = node.end_lineno or node.lineno
        column = node.end_col_offset or 0
        return start, self.starts[end_line - 1] + utf8_column(self.line(end_line), column)

    def line(self, number: int) -> str:
        return self.source[self.starts[number - 1] : self.starts[number]]

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.source[start:end]

    def __call__(self, node: ast.AST, replacement: str) -> str:
        start, end = self.span(node)
        return self.source[:start] + replacement + self.source[end:]


def utf8_column(line: str, offset: int) -> int:
    """ast's column offsets count UTF-8 bytes; this is the same place in characters."""
    return len(line.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
