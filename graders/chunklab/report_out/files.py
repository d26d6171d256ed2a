"""Files in the output folder, each written atomically: a reader never sees half a file."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from chunklab.report_out.inert import inert_text, json_text

# The readable part of a report's file name; with its hash the name stays far below
# the 255 bytes a file system allows, whatever the submission's path.
READABLE_NAME_CHARS = 80


def write_atomic(path: Path, text: str) -> None:
    # Whatever a submission brought (its file name in a CSV cell, for one) is inert.
    write_atomic_bytes(path, inert_text(text).encode("utf-8"))


def write_atomic_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # Made private (mode 0600) by mkstemp, and kept so: output files hold grades.
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json_text(data, indent=2) + "\n")


def write_json_or_say_why(path: Path, data: Any) -> str:
    """Writes `data` to `path`; when it cannot be written, says why instead of raising."""
    try:
        write_json(path, data)
    except OSError as error:
        return f"the report could not be written to {path}: {error.strerror or error}"
    return ""


def report_file_name(display: str, resolved: str) -> str:
    """A readable part of the path as given, and a hash of the resolved path that tells it apart.

    `class/José/char_chunk.py` → `class__Jose__char_chunk.py-1a2b3c4d5e6f.json`: the
    same submission always gets the same name, two submissions never share one
    (names that only differ in accents or script do not either), and the name
    stays short however long the path is.
    """
    plain = unicodedata.normalize("NFKD", display).encode("ascii", "ignore").decode("ascii")
    flat = re.sub(r"[^A-Za-z0-9._-]+", "__", plain.strip("./").replace(os.sep, "/")).strip("_")
    if len(flat) > READABLE_NAME_CHARS:
        flat = flat[-READABLE_NAME_CHARS:].lstrip("._-")  # the end says the most: the file's name
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{flat or 'submission'}-{digest}.json"
