"""Reads a `.py` submission: its text is one cell."""

from __future__ import annotations

from pathlib import Path

from chunklab.errors import UnreadableSubmissionError
from chunklab.reading.source import CodeCell


def decode_text(raw: bytes, path: Path) -> str:
    """The file's text, or an error a student can act on when it is not text."""
    if b"\x00" in raw:
        raise UnreadableSubmissionError(
            f"{path.name} is not a text file (it holds binary data); "
            "hand in the .py file or the .ipynb notebook itself"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableSubmissionError(
            f"{path.name} is not UTF-8 text (byte {error.start} cannot be read); "
            "save it as UTF-8 and hand it in again"
        ) from None


def read_python(path: Path, raw: bytes) -> tuple[CodeCell, ...]:
    return (CodeCell(index=0, label=path.name, source=decode_text(raw, path)),)
