"""Reading a hostile notebook costs what reading a normal one does: its excess is its error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunklab.errors import SubmissionTooLargeError
from chunklab.reading import notebook_file
from chunklab.reading.notebook_file import MOST_CELLS
from chunklab.reading.read import read_submission


def magic_cells_notebook(path: Path, count: int) -> Path:
    """A notebook of `count` one-line magic cells, as small as JSON allows."""
    cells = b",".join([b'{"cell_type":"code","source":"%a"}'] * count)
    path.write_bytes(b'{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[' + cells + b"]}")
    return path


def test_a_notebook_of_330000_magic_cells_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    path = magic_cells_notebook(tmp_path / "hostile_word_chunk.ipynb", 330_000)
    assert path.stat().st_size < 12_000_000  # within the size a notebook may have

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the notebook was parsed")

    monkeypatch.setattr(notebook_file.json, "loads", never)
    with pytest.raises(SubmissionTooLargeError) as refused:
        read_submission(path)
    assert str(refused.value) == (
        f"hostile_word_chunk.ipynb holds more than {MOST_CELLS:,} cells, more than a lesson's "
        "notebook ever needs: hand in the lesson's notebook with your solution in it"
    )


def test_a_notebook_of_as_many_cells_as_allowed_is_read(tmp_path):
    path = magic_cells_notebook(tmp_path / "many_word_chunk.ipynb", MOST_CELLS)
    source = read_submission(path)
    assert len(source.cells) == MOST_CELLS
    assert json.loads(path.read_text())["cells"][0] == {"cell_type": "code", "source": "%a"}
