"""Text made safe to write: JSON that is valid UTF-8 on one line, and a text file's text.

A submission controls much of what a report holds (exception messages, the
repr of what it returned, what it printed, its file name), so none of it may
reach a file, a pipe or a terminal as anything but inert characters.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Characters json.dumps leaves raw that a reader could take for something else:
# DEL and C1 controls (terminal escapes), U+2028/U+2029 and U+0085 (line breaks
# for many readers, so a report would span lines), bidirectional overrides (text
# that reads differently from what it is), and lone surrogates (not UTF-8 at all;
# file names that are not UTF-8 arrive as such).
_RAW_IN_JSON = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape_in_json(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        # Not a character: written as the text `\udce9`, so no reader sees a surrogate.
        return f"\\\\u{code:04x}"
    return f"\\u{code:04x}"


# The same, and the C0 controls but tab and line breaks, for text files (a CSV cell).
_RAW_IN_TEXT = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2066-\u2069\ud800-\udfff]"
)


def json_text(data: Any, indent: int | None = None) -> str:
    """`data` as JSON that encodes to valid UTF-8 and holds no raw line break or control."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _RAW_IN_JSON.sub(_escape_in_json, text)


def json_line(data: Any) -> str:
    """One JSON Lines record, without its newline: whatever `data` holds, it is one line."""
    return json_text(data)


def inert_text(text: str) -> str:
    """`text` for a file: tabs and line breaks kept, every other control shown as an escape."""
    return _RAW_IN_TEXT.sub(lambda match: ascii(match.group())[1:-1], text)
