"""Pictures of chunks to eyeball: each chunk in its place in the text, overlaps marked.

`show_chunks(text, chunks)` returns a `ChunkPicture`. Jupyter draws its HTML
(`_repr_html_`); a terminal or `print` gets plain text. A character that two
or more chunks hold is an overlap; a character no chunk holds is a gap, which
usually means text was lost.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunklab.text import clip_middle

# Up to this many characters, every row shows the whole text, so the rows line up.
WHOLE_TEXT_LIMIT = 400
# Plain text lines up the rows only while the text fits on one terminal line.
ALIGNED_PLAIN_LIMIT = 90
# Characters of text shown either side of a chunk when the text is long.
CONTEXT = 30
# A run longer than this is cut in the middle in the plain-text list.
RUN_LIMIT = 70

# One visible character for each whitespace character, so columns stay aligned.
VISIBLE_WHITESPACE = {"\n": "⏎", "\r": "␍", "\t": "→"}


@dataclass(frozen=True)
class PlacedChunk:
    """A chunk and where it sits in the text: `text[start:end]`, or nowhere."""

    index: int
    text: str
    start: int | None
    # Where it ends in the text; a chunk of words may span more whitespace than it holds.
    end: int | None
    # Why the chunk could not be placed, or how its stated start disagrees with the text.
    note: str = ""


@dataclass(frozen=True)
class Run:
    """A stretch of one chunk in which every character is an overlap, or none is."""

    text: str
    overlap: bool


@dataclass(frozen=True)
class ChunkPicture:
    """The chunks of a text, drawn as HTML in Jupyter and as plain text elsewhere."""

    text: str
    chunks: tuple[PlacedChunk, ...]

    @property
    def coverage(self) -> tuple[int, ...]:
        """How many placed chunks hold each character of the text."""
        counts = [0] * len(self.text)
        for chunk in self.chunks:
            if chunk.start is not None and chunk.end is not None:
                for position in range(chunk.start, chunk.end):
                    counts[position] += 1
        return tuple(counts)

    def runs(self, chunk: PlacedChunk) -> tuple[Run, ...]:
        """The chunk's stretch of the text, cut where overlaps begin and end."""
        if chunk.start is None or chunk.end is None:
            return (Run(chunk.text, False),)
        coverage = self.coverage
        found: list[Run] = []
        for offset, char in enumerate(self.text[chunk.start : chunk.end]):
            overlap = coverage[chunk.start + offset] > 1
            if found and found[-1].overlap == overlap:
                found[-1] = Run(found[-1].text + char, overlap)
            else:
                found.append(Run(char, overlap))
        return tuple(found)

    def gaps(self) -> tuple[tuple[int, int], ...]:
        """The stretches `(start, end)` of the text that no chunk holds."""
        found: list[tuple[int, int]] = []
        for position, count in enumerate(self.coverage):
            if count:
                continue
            if found and found[-1][1] == position:
                found[-1] = (found[-1][0], position + 1)
            else:
                found.append((position, position + 1))
        return tuple(found)

    def summary(self) -> str:
        coverage = self.coverage
        overlaps = sum(1 for count in coverage if count > 1)
        gaps = sum(1 for count in coverage if count == 0)
        noun = "chunk" if len(self.chunks) == 1 else "chunks"
        line = (
            f"{len(self.chunks)} {noun} of a {len(self.text)}-character text; "
            f"{overlaps} characters in overlaps, {gaps} in no chunk"
        )
        lost = sum(1 for chunk in self.chunks if chunk.start is None)
        return line + (f"; {lost} not found in the text" if lost else "")

    def __str__(self) -> str:
        if len(self.text) <= ALIGNED_PLAIN_LIMIT:
            return plain_aligned(self)
        return plain_list(self)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return html_picture(self)


def show_chunks(
    text: str,
    chunks: Sequence[str] | Sequence[dict[str, Any]],
    starts: Sequence[int] | None = None,
) -> ChunkPicture:
    """A picture of `chunks` in their places in `text`.

    `chunks` are strings, or dicts with `text` and `char_start` (the pipeline's
    chunks). Without starts, each chunk is looked for after the start of the one
    before it; a chunk of words joined by single spaces is also found where the
    text separates those words by other whitespace.
    """
    if starts is not None and len(starts) != len(chunks):
        raise ValueError(f"{len(starts)} starts were given for {len(chunks)} chunks")
    texts: list[str] = []
    given: list[int | None] = []
    for position, item in enumerate(chunks):
        if isinstance(item, dict):
            texts.append(str(item.get("text", "")))
            start = item.get("char_start")
            given.append(start if isinstance(start, int) else None)
        else:
            texts.append(str(item))
            given.append(None if starts is None else starts[position])
    return ChunkPicture(text, tuple(place(text, texts, given)))


def place(text: str, chunks: list[str], starts: list[int | None]) -> list[PlacedChunk]:
    placed: list[PlacedChunk] = []
    search_from = 0
    for index, (chunk, start) in enumerate(zip(chunks, starts, strict=True)):
        if start is not None:
            item = placed_at(text, index, chunk, start)
        else:
            item = PlacedChunk(index, chunk, *locate(text, chunk, search_from))
        if item.start is not None:
            # The next chunk starts after this one does (or, if a chunk repeats, right here).
            search_from = item.start + (1 if chunk else 0)
        placed.append(item)
    return placed


def placed_at(text: str, index: int, chunk: str, start: int) -> PlacedChunk:
    if 0 <= start and text[start : start + len(chunk)] == chunk:
        return PlacedChunk(index, chunk, start, start + len(chunk))
    return PlacedChunk(index, chunk, None, None, f"char_start {start} does not point at this text")


def locate(text: str, chunk: str, search_from: int) -> tuple[int | None, int | None, str]:
    """Where `chunk` starts and ends in `text`: looked for after `search_from`, then anywhere."""
    for origin in (search_from, 0):
        start = text.find(chunk, origin)
        if start >= 0:
            return start, start + len(chunk), ""
    words = chunk.split()
    if words:
        pattern = re.compile(r"\s+".join(map(re.escape, words)))
        for origin in (search_from, 0):
            match = pattern.search(text, origin)
            if match:
                return match.start(), match.end(), ""
    return None, None, "not found in the text"


# --- plain text ---------------------------------------------------------------------------


def visible(text: str) -> str:
    return "".join(VISIBLE_WHITESPACE.get(c, "·" if c.isspace() and c != " " else c) for c in text)


def label(chunk: PlacedChunk) -> str:
    return f"chunk {chunk.index}"


def plain_aligned(picture: ChunkPicture) -> str:
    """Every chunk under its place in the text; `^` under the characters in overlaps."""
    width = max([len("text"), *(len(label(c)) for c in picture.chunks)]) + 2
    lines = [picture.summary(), "text".ljust(width) + visible(picture.text)]
    for chunk in picture.chunks:
        if chunk.start is None:
            lines.append(label(chunk).ljust(width) + f"{chunk.text!r}  ({chunk.note})")
            continue
        indent = " " * (width + chunk.start)
        in_place = picture.text[chunk.start : chunk.end]
        lines.append(label(chunk).ljust(width) + indent[width:] + visible(in_place))
        runs = picture.runs(chunk)
        marks = "".join(("^" if run.overlap else " ") * len(run.text) for run in runs)
        if marks.strip():
            lines.append((indent + marks).rstrip())
    return "\n".join(lines)


def plain_list(picture: ChunkPicture) -> str:
    """One entry per chunk, its overlaps in ⟦ ⟧; for texts too long to line up."""
    lines = [picture.summary()]
    gaps = picture.gaps()
    if gaps:
        shown = ", ".join(f"text[{start}:{end}]" for start, end in gaps[:5])
        lines.append(f"in no chunk: {shown}" + (", ..." if len(gaps) > 5 else ""))
    for chunk in picture.chunks:
        if chunk.start is None:
            lines.append(f"{label(chunk)}  {chunk.note}  ({len(chunk.text)} characters)")
        else:
            lines.append(
                f"{label(chunk)}  text[{chunk.start}:{chunk.end}]  ({len(chunk.text)} characters)"
            )
        shown = "".join(
            f"⟦{clip_middle(visible(run.text), RUN_LIMIT)}⟧"
            if run.overlap
            else clip_middle(visible(run.text), RUN_LIMIT)
            for run in picture.runs(chunk)
        )
        lines.append(f"    {shown}")
    return "\n".join(lines)


# --- HTML -----------------------------------------------------------------------------------

# Translucent colours read well on light and dark themes alike.
CHUNK_COLOURS = ("rgba(66, 135, 245, 0.22)", "rgba(46, 184, 114, 0.25)")
OVERLAP_COLOUR = "rgba(255, 170, 0, 0.55)"
GAP_COLOUR = "rgba(230, 60, 60, 0.45)"
ROW_STYLE = "display:flex;gap:0.8em;align-items:baseline;margin:2px 0"
LABEL_STYLE = "flex:0 0 5.5em;font-family:monospace;opacity:0.7"
TEXT_STYLE = "flex:1;margin:0;font-family:monospace;white-space:pre-wrap;word-break:break-all"


def span(text: str, style: str = "", title: str = "") -> str:
    shown = html.escape(text).replace("\n", "⏎\n").replace("\t", "→")
    attributes = (f' style="{style}"' if style else "") + (f' title="{title}"' if title else "")
    return f"<span{attributes}>{shown}</span>" if attributes else shown


def html_row(row_label: str, body: str) -> str:
    return (
        f'<div style="{ROW_STYLE}"><span style="{LABEL_STYLE}">{html.escape(row_label)}</span>'
        f'<pre style="{TEXT_STYLE}">{body}</pre></div>'
    )


def html_text_row(picture: ChunkPicture) -> str:
    """The whole text once: overlaps in orange, characters in no chunk in red."""
    coverage = picture.coverage
    parts: list[str] = []
    start = 0
    for end in range(1, len(picture.text) + 1):
        if end == len(picture.text) or min(coverage[end], 2) != min(coverage[start], 2):
            count = min(coverage[start], 2)
            style = {0: f"background:{GAP_COLOUR}", 1: "", 2: f"background:{OVERLAP_COLOUR}"}[count]
            title = {0: "in no chunk", 1: "", 2: "in an overlap"}[count]
            parts.append(span(picture.text[start:end], style, title))
            start = end
    return html_row("text", "".join(parts))


def html_chunk_row(picture: ChunkPicture, chunk: PlacedChunk) -> str:
    colour = CHUNK_COLOURS[chunk.index % len(CHUNK_COLOURS)]
    if chunk.start is None:
        body = span(chunk.text, f"background:{GAP_COLOUR}") + f"  ({html.escape(chunk.note)})"
        return html_row(label(chunk), body)
    end = chunk.end if chunk.end is not None else chunk.start
    whole = len(picture.text) <= WHOLE_TEXT_LIMIT
    before_from = 0 if whole else max(0, chunk.start - CONTEXT)
    after_to = len(picture.text) if whole else min(len(picture.text), end + CONTEXT)
    faded = "opacity:0.3"
    body = "…" if before_from > 0 else ""
    body += span(picture.text[before_from : chunk.start], faded)
    for run in picture.runs(chunk):
        background = OVERLAP_COLOUR if run.overlap else colour
        body += span(run.text, f"background:{background}", "overlap" if run.overlap else "")
    body += span(picture.text[end:after_to], faded)
    body += "…" if after_to < len(picture.text) else ""
    return html_row(label(chunk), body)


def html_picture(picture: ChunkPicture) -> str:
    rows = [html_text_row(picture)] + [html_chunk_row(picture, c) for c in picture.chunks]
    legend = (
        f'<span style="background:{OVERLAP_COLOUR}">&nbsp;overlap&nbsp;</span> '
        f'<span style="background:{GAP_COLOUR}">&nbsp;in no chunk&nbsp;</span>'
    )
    return (
        f'<div class="chunklab-chunks"><div style="margin-bottom:4px">'
        f"{html.escape(picture.summary())} &nbsp; {legend}</div>{''.join(rows)}</div>"
    )
