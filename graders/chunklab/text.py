"""Text for a person to read: long text cut to a size, and text that shows as what it is.

Every place that shows a long value (the table, the class report, the chunk
picture, a message from the worker) cuts it with `clip`, each with its own marks; every
place that writes text a submission chose where a person reads it (a terminal,
a CSV cell) passes it through `terminal_safe`. This module imports nothing of
the package, so any layer may use it.
"""

from __future__ import annotations

# The mark after the start of a long text from the worker: how much more there was.
MORE_NOT_SHOWN = " ...[{left_out} more characters not shown]"


def clip(text: str, limit: int, *, head: int, tail: int = 0, mark: str = "...") -> str:
    """`text` when it holds at most `limit` characters; else its ends around `mark`.

    The first `head` and the last `tail` characters are kept; `{left_out}` in
    `mark` becomes the number of characters between them.
    """
    if len(text) <= limit:
        return text
    left_out = len(text) - head - tail
    return text[:head] + mark.format(left_out=left_out) + text[len(text) - tail :]


def clip_end(text: str, limit: int, mark: str = "...") -> str:
    """At most `limit` characters: the start of a longer `text`, ending in `mark`."""
    return clip(text, limit, head=limit - len(mark), mark=mark)


def first_of(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note of how many more there were."""
    return clip(text, limit, head=limit, mark=MORE_NOT_SHOWN)


def clip_middle(text: str, limit: int, mark: str = " … ") -> str:
    """At most `limit` characters: as much of each end of a longer `text` around `mark`."""
    keep = (limit - len(mark)) // 2
    return clip(text, limit, head=keep, tail=keep, mark=mark)


def terminal_safe(text: str) -> str:
    """`text` with every non-printable character shown as an escape (`\\x1b`, `\\u2028`).

    What a terminal would act on, or a spreadsheet cell hide (a control, a line
    break, a zero-width or private-use character, a space other than the plain
    one), is written out as its escape, so `frank\\u200b` never looks like `frank`.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
