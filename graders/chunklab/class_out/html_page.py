"""Self-contained HTML pages: inert text, one stylesheet, no script, nothing from the network.

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

STYLE = """
:root { color-scheme: light; --ink: #1d232b; --muted: #5b6570; --line: #d5dae0;
  --accent: #2f6fd6; --bad: #c2412d; --good: #2e8b57; --soft: #f4f6f8; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 32px 0 8px; padding-bottom: 4px;
  border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05em; margin: 20px 0 6px; }
p.lede, .muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 6px 0 14px; font-size: 0.93em; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px;
  border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; }
td { overflow-wrap: break-word; }
td code { overflow-wrap: anywhere; }
table.rules td:first-child { width: 34%; }
table.rules td:last-child { width: 30%; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 0.92em; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
pre.box { background: var(--soft); border: 1px solid var(--line); border-radius: 4px;
  padding: 6px 8px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 130px; }
.card b { display: block; font-size: 1.4em; }
.bar { display: inline-block; height: 0.8em; background: var(--bad); opacity: 0.75;
  vertical-align: middle; border-radius: 2px; }
.score-full { color: var(--good); font-weight: 600; }
.score-zero { color: var(--bad); font-weight: 600; }
.status-error { color: var(--bad); }
.rule { border: 1px solid var(--line); border-left: 4px solid var(--bad); border-radius: 4px;
  padding: 8px 12px; margin: 10px 0; page-break-inside: avoid; break-inside: avoid; }
.rule p { margin: 0 0 6px; }
.problem { border-left: 4px solid var(--bad); background: #fdf3f1; padding: 6px 10px;
  margin: 6px 0; }
.warning { border-left: 4px solid #d9a400; background: #fdf8e8; padding: 6px 10px; margin: 6px 0; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px;
  margin: 6px 0 18px; }
.pair pre { max-height: 28em; overflow: auto; }
mark { background: rgba(255, 170, 0, 0.45); color: inherit; }
.picture { margin: 6px 0; }
.picture h4 { margin: 8px 0 2px; font-size: 0.95em; }
a { color: var(--accent); }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  h2 { page-break-after: avoid; break-after: avoid; }
  tr, .card { page-break-inside: avoid; break-inside: avoid; }
  .pair pre { max-height: none; overflow: visible; }
}
"""


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


def page(title: str, body: str) -> str:
    """A whole HTML document: inline CSS, no script, no font or image from elsewhere."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def table(
    headers: list[str],
    rows: list[list[str]],
    numeric: frozenset[int] = frozenset(),
    klass: str = "",
) -> str:
    """An HTML table; `rows` hold HTML already escaped, `numeric` the right-aligned columns."""

    def cell(tag: str, index: int, content: str) -> str:
        klass = ' class="num"' if index in numeric else ""
        return f"<{tag}{klass}>{content}</{tag}>"

    head = "".join(cell("th", i, esc(h)) for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>" for row in rows
    )
    opening = f'<table class="{klass}">' if klass else "<table>"
    return f"{opening}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def points(value: float) -> str:
    return f"{value:g}"
