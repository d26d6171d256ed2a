"""Files in the output folder, each written atomically: a reader never sees half a file."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def report_file_name(submission: str) -> str:
    """`class/alice/char_chunk.py` → `class__alice__char_chunk.py.json`: one name per submission."""
    flat = re.sub(r"[^A-Za-z0-9._-]+", "__", submission.strip("./").replace(os.sep, "/"))
    return f"{flat or 'submission'}.json"
