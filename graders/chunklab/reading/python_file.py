"""Reads a `.py` submission: its text is one cell."""

from __future__ import annotations

import io
import tokenize
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


def decode_source(raw: bytes, path: Path) -> str:
    """A Python file's text, decoded as Python decodes it.

    UTF-8 unless the file says otherwise: a byte order mark, or a PEP 263 coding
    line (`# -*- coding: latin-1 -*-`) in its first two lines.
    """
    if b"\x00" in raw:
        return decode_text(raw, path)  # the error that says it is no text file
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise UnreadableSubmissionError(
            f"{path.name} cannot be read: {error.msg}; name an encoding Python knows in its "
            "coding line (or remove the line and save the file as UTF-8)"
        ) from None
    if encoding in ("utf-8", "utf-8-sig"):
        return decode_text(raw, path)
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise UnreadableSubmissionError(
            f"{path.name} is not {encoding} text as its coding line says (byte {error.start} "
            "cannot be read); save it in that encoding, or as UTF-8 without the line"
        ) from None


def read_python(path: Path, raw: bytes) -> tuple[CodeCell, ...]:
    return (CodeCell(index=0, label=path.name, source=decode_source(raw, path)),)
