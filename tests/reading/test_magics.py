"""A notebook's magics are found where IPython finds them: at the start of a logical line.

black writes a long `a % b` or `a != b` across lines inside brackets, the
operator first on its line; IPython reads that as Python, and so must grading.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.reading import magics
from chunklab.reading.magics import logical_starts, strip_magics, tokenized_starts
from chunklab.reading.read import read_submission

# A word_chunk solution as black formats it when its lines are long: `%` and `!=`
# start continuation lines inside brackets.
BLACK_FORMATTED = '''\
def solve(text, size, overlap):
    words = text.split()
    nothing = (
        len(words)
        != 0
    ) is False
    if nothing:
        return []
    step = (
        size - overlap + size
        % size
    )
    chunks = []
    start = 0
    while True:
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += step
    return chunks
'''
SHAPES = [
    "x = (\n    a\n    != b\n)\n",
    "y = [\n    a\n    % b\n]\n",
    "z = 1 + \\\n    !2\n",
    's = """\n%not a magic\n"""\n',
    "f(\n    a,\n    # a comment\n    %b,\n)\n",
]


@pytest.mark.parametrize("cell", SHAPES)
def test_a_continuation_line_that_starts_with_a_magic_sign_is_code(cell):
    assert TransformerManager().transform_cell(cell) == cell  # IPython leaves it as it is
    assert strip_magics(cell, "cell 1") == magics.CellCode(cell)


def test_magics_that_start_a_logical_line_are_still_skipped():
    cell = "x = (\n    1\n)\n%time f()\nfor n in x:\n    !ls\ny = 2\n"
    code = strip_magics(cell, "cell 1")
    assert code.source == "x = (\n    1\n)\n\nfor n in x:\n    pass\ny = 2\n"
    assert code.warnings[0].message.startswith("cell 1: line(s) 4, 6 (such as `%time f()`)")


def test_without_ipython_the_tokenizer_finds_the_same_logical_lines(monkeypatch):
    cells = [*SHAPES, BLACK_FORMATTED, "a = (\n1\n)\n%time f()\nb = [\n  2\n  %c\n]\n!ls\n"]
    for cell in cells:
        lines = cell.split("\n")
        assert tokenized_starts([line + "\n" for line in lines]) == logical_starts(lines), cell


def notebook_of(code: str, folder: Path) -> Path:
    path = folder / "word_chunk.ipynb"
    path.write_text(notebook_text(submission_notebook("word_chunk", code)))
    return path


def test_black_formatted_cells_grade_as_the_same_code_in_a_py_file(chunklab, tmp_path):
    assert TransformerManager().transform_cell(BLACK_FORMATTED) == BLACK_FORMATTED
    (tmp_path / "nb").mkdir()
    (tmp_path / "py").mkdir()
    notebook = notebook_of(BLACK_FORMATTED, tmp_path / "nb")
    (tmp_path / "py" / "word_chunk.py").write_text(BLACK_FORMATTED)
    source = read_submission(notebook)
    assert BLACK_FORMATTED.rstrip() in [cell.source.rstrip() for cell in source.cells]
    assert source.warnings == ()
    result = chunklab("grade", "--jobs", "1", notebook, tmp_path / "py" / "word_chunk.py")
    as_notebook, as_python = result.reports
    assert as_python["score"] == as_python["max_score"] > 0
    assert (as_notebook["score"], as_notebook["warnings"]) == (as_python["score"], [])
    assert [t["outcome"] for t in as_notebook["tests"]] == [
        t["outcome"] for t in as_python["tests"]
    ]
