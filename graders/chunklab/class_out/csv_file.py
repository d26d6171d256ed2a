"""CSV text whose every cell is inert: one line a row, nothing hidden, never a formula.

A cell may hold what a submission chose (its file name, its student's name,
an error message), so each cell passes through `cell` before it is written:
a character that does not show as itself (a control, a line break or tab, a
zero-width or other format character, a private-use or unassigned code
point, a space other than the plain one) is written as its escape (`\\u200b`),
so `frank\\u200b` never looks like `frank`; and a text a spreadsheet would read
as a formula gets a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from chunklab.text import terminal_safe

# What a spreadsheet reads as the start of a formula; some read the full-width forms so too.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def cell(value: object) -> object:
    """A cell a spreadsheet shows as the text it is, never runs as a formula."""
    if not isinstance(value, str):
        return value
    text = terminal_safe(value)
    if text in ("-", "+"):  # a sign alone, as LMS exports write an empty date, is no formula
        return text
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """The header and rows as CSV text, every cell through `cell`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([cell(each) for each in header])
    for row in rows:
        writer.writerow([cell(each) for each in row])
    return buffer.getvalue()
