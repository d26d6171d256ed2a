"""IPython magics and shell lines in a notebook cell: what is graded, what is skipped.

A cell magic whose body Jupyter runs as the notebook's own Python (`%%time`,
`%%capture`, `%%prun`) is graded as that Python. Any other cell magic
(`%%bash`, `%%html`, `%%writefile`, `%%timeit`, whose body runs apart from the
notebook's names), line magics and shell lines are not Python: they are
skipped, and the student is told, never silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunklab.scoring.report import Problem

# Cell magics that run their body as Python in the notebook's own namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "capture", "prun"})
WARNING_KIND = "magic_skipped"


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
    if not skipped:
        return CellCode("\n".join(lines))
    blank = set(skipped)
    kept = ["" if number in blank else line for number, line in enumerate(lines, 1)]
    shown = ", ".join(str(number) for number in skipped[:5]) + (", ..." if skipped[5:] else "")
    example = lines[skipped[0] - 1].strip()[:40]
    warning = Problem(
        WARNING_KIND,
        f"{label}: line(s) {shown} (such as `{example}`) are IPython commands, not Python; "
        "they were skipped. Your solution must not need them.",
    )
    return CellCode("\n".join(kept), (warning,))


def is_ipython_line(line: str) -> bool:
    """A line magic (`%matplotlib inline`) or a shell line (`!pip install ...`)."""
    return line.lstrip().startswith(("%", "!"))
