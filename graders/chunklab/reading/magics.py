"""IPython magics and shell lines in a notebook cell: what is graded, what is skipped.

A cell magic whose body Jupyter runs as the notebook's own Python (`%%time`,
`%%capture`, `%%prun`) is graded as that Python. Any other cell magic
(`%%bash`, `%%html`, `%%writefile`, `%%timeit`, whose body runs apart from the
notebook's names), line magics and shell lines are not Python: they are
skipped, and the student is told, never silently.

A line is a magic only where IPython reads one: at the start of a logical line.
A `%` or `!=` that begins a continuation line inside brackets (as black writes
a long `a % b` or `a != b`) is code. Logical lines are found as IPython's own
input transformer finds them (`IPython.core.inputtransformer2`) when IPython
is installed, else by Python's tokenizer in the same way.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass

from chunklab.scoring.report import Problem

# Cell magics that run their body as Python in the notebook's own namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "capture", "prun"})
WARNING_KIND = "magic_skipped"
# Lines IPython reads and Python cannot: a line magic or shell line (`%time f()`,
# `!pip install x`), either assigned (`files = !ls`), help (`f?`, `?f`, `obj.method??`),
# and the calls IPython writes them as when a notebook is exported (`get_ipython().system(...)`).
IPYTHON_LINE = re.compile(
    r"""\s*(?:
        [%!]
      | [A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]
      | \?{1,2}[A-Za-z_][\w.]*\s*$
      | [A-Za-z_][\w.]*(?:\(\))?\?{1,2}\s*$
      | get_ipython\(\)
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class CellCode:
    """A cell's Python, with IPython's lines blanked (line numbers kept), and what was skipped."""

    source: str
    warnings: tuple[Problem, ...] = ()


def strip_magics(source: str, label: str) -> CellCode:
    lines = source.split("\n")
    first = lines[0].strip()
    if first.startswith("%%"):
        name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return CellCode(
                "",
                (
                    Problem(
                        WARNING_KIND,
                        f"{label} starts with the cell magic %%{name}, whose code Jupyter does "
                        "not run as the notebook's Python; it was not graded. Put your "
                        "solution in a plain code cell.",
                    ),
                ),
            )
        lines[0] = ""  # the body below is plain Python
    skipped = [number for number, line in enumerate(lines, 1) if is_ipython_line(line)]
    if skipped[-1:] > [1]:  # past the first line, only where a logical line starts
        starts = logical_starts(lines)
        skipped = [number for number in skipped if number in starts]
    if not skipped:
        return CellCode("\n".join(lines))
    kept = with_stand_ins(lines, set(skipped))
    shown = ", ".join(str(number) for number in skipped[:5]) + (", ..." if skipped[5:] else "")
    example = lines[skipped[0] - 1].strip()[:40]
    warning = Problem(
        WARNING_KIND,
        f"{label}: line(s) {shown} (such as `{example}`) are IPython commands, not Python; "
        "they were skipped. Your solution must not need them.",
    )
    return CellCode("\n".join(kept), (warning,))


def is_ipython_line(line: str) -> bool:
    """A line magic (`%matplotlib inline`), a shell line (`!pip install ...`), help (`f?`)."""
    return IPYTHON_LINE.match(line) is not None


def logical_starts(lines: list[str]) -> set[int]:
    """The lines (numbered from 1) where a logical line starts, as IPython tells them."""
    ended = [line + "\n" for line in lines]
    try:
        from IPython.core.inputtransformer2 import make_tokens_by_line
    except ImportError:
        return tokenized_starts(ended)
    try:
        return {tokens[0].start[0] for tokens in make_tokens_by_line(ended) if tokens}
    except Exception:  # IPython could not tokenize it: Python's tokenizer tries
        return tokenized_starts(ended)


def tokenized_starts(lines: list[str]) -> set[int]:
    """Logical line starts by Python's tokenizer, grouped as IPython groups them.

    A line that cannot be tokenized, and every line after it, counts as a start:
    as if each line stood alone, which is how it was read before it failed.
    """
    starts = {1}
    depth = 0
    reached = 0
    tokens = tokenize.generate_tokens(iter(lines).__next__)
    try:
        for token in tokens:
            reached = token.end[0]
            if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth <= 0):
                starts.add(token.end[0] + 1)
            elif token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}" and depth > 0:
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        if depth > 0:  # inside brackets at the end: the lines to the end continue them
            return starts
        starts.update(range(reached + 1, len(lines) + 1))
    return starts


def with_stand_ins(lines: list[str], skipped: set[int]) -> list[str]:
    """The lines with each skipped one (numbered from 1) made blank, or `pass` inside a block.

    A skipped line may be all a block holds (`for ...:` then an indented `%time`), so
    there it becomes `pass` at its own indent; where no code line opens or continues
    a block at that indent, it becomes blank, as a blank line fits anywhere.
    """
    kept: list[str] = []
    code_before = ""  # the last line kept that holds code
    for number, line in enumerate(lines, 1):
        if number not in skipped:
            kept.append(line)
            if line.strip() and not line.lstrip().startswith("#"):
                code_before = line
            continue
        indent = len(line) - len(line.lstrip())
        before = len(code_before) - len(code_before.lstrip())
        opens = code_before.rstrip().endswith(":") and indent > before
        inside = 0 < indent <= before
        kept.append(" " * indent + "pass" if opens or inside else "")
    return kept
