"""What a page may show of a string: inert text, HTML-escaped; links percent-encoded.

Everything shown comes from submissions (names, printed output, returned
values), so every string passes through `inert` before it is escaped: a
control character, a lone surrogate, a bidirectional override or a character
that shows as nothing (zero-width, format, private use, unassigned) in a student's
text must not reach the page as itself.
"""

from __future__ import annotations

import html
import unicodedata
from urllib.parse import quote

# Characters that would change how the text around them is drawn (reordering, hiding).
BIDI_CONTROLS = frozenset(
    chr(c) for c in (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
)
REPLACEMENT = "\ufffd"
# Format, private use, unassigned, line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cf", "Co", "Cn", "Zl", "Zp"})


def inert_char(char: str) -> str:
    """One visible character for one that would act instead of show (offsets stay put)."""
    code = ord(char)
    if code < 0x20 and char not in "\n\t":
        return chr(0x2400 + code)  # the Unicode "control picture" of it, e.g. ␛
    if code == 0x7F:
        return "\u2421"
    if 0x80 <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or char in BIDI_CONTROLS:
        return REPLACEMENT
    # Zero-width, format, private-use and unassigned characters show as nothing (or as
    # anything): `frank\u200b` must not pass for `frank`.
    if unicodedata.category(char) in HIDDEN_CATEGORIES:
        return REPLACEMENT
    return char


def inert(text: object) -> str:
    """`text` as a string safe to show: same length, nothing in it acts on the page."""
    value = "" if text is None else str(text)
    if value.isprintable():
        return value
    return "".join(map(inert_char, value))


def esc(text: object) -> str:
    """Inert and HTML-escaped, quotes included (safe in text and in attribute values)."""
    return html.escape(inert(text), quote=True)


def href(path: str) -> str:
    """A relative link to `path`, its characters percent-encoded."""
    return html.escape(quote(inert(path), safe="/"), quote=True)


def points(value: float) -> str:
    return f"{value:g}"


def percent(value: float) -> str:
    return f"{value * 100:.0f}%"
