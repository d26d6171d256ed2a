"""The grade report's JSON Schema, with the lesson ids taken from the lesson registry.

The file on disk cannot list the lessons without becoming one more copy of the
registry; this fills the list in, so a new lesson folder is all a new lesson needs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chunklab.lessons import LESSONS

SCHEMA_FILE = Path(__file__).resolve().parent / "report.schema.json"


def report_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    schema["properties"]["lesson"] = {
        "description": schema["properties"]["lesson"]["description"],
        "enum": [*LESSONS, None],
    }
    return schema
