"""The chunk picture of a failed chunking: expected against got, overlaps marked.

A test's feedback reads `Input: chunk('...', 3, 1)`, `Expected: [...]`,
`Got: [...]`. When the input's first argument is a text and both results are
lists of strings, the notebooks' picture (`chunklab.student.showing`) of each is drawn
under the other. The values are read with `ast.literal_eval`, never run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from chunklab.class_out.html_page import inert
from chunklab.student.showing import ChunkPicture, show_chunks

# Feedback is cut by the grader long before this; a longer line is not worth parsing.
LINE_LIMIT = 20_000
# The picture's cost grows with the text times the chunks; past these it is not drawn.
PICTURE_TEXT_LIMIT = 2_000
PICTURE_CHUNK_LIMIT = 200


@dataclass(frozen=True)
class Comparison:
    """The text a chunking was given, and the chunks expected and returned."""

    text: str
    expected: tuple[str, ...]
    got: tuple[str, ...]


def feedback_lines(feedback: str) -> dict[str, str]:
    """`Input`, `Expected` and `Got` of a test's feedback, by name."""
    found: dict[str, str] = {}
    for line in feedback.splitlines():
        name, colon, value = line.partition(": ")
        if colon and name in ("Input", "Expected", "Got") and name not in found:
            found[name] = value
    return found


def literal(source: str) -> object:
    if len(source) > LINE_LIMIT:
        return None
    try:
        return ast.literal_eval(source)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def text_argument(call: str) -> str | None:
    """The first argument of the last call in `chunk('abc', 3, 1)` or `P(...).chunk_text('abc')`."""
    if len(call) > LINE_LIMIT:
        return None
    try:
        tree = ast.parse(call, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    node = tree.body
    if not isinstance(node, ast.Call) or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def strings(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


def comparison_in(feedback: str) -> Comparison | None:
    """The chunking a test's feedback describes, when it is one with lists of strings."""
    lines = feedback_lines(feedback)
    if len(lines) < 3:
        return None
    text = text_argument(lines["Input"])
    expected = strings(literal(lines["Expected"]))
    got = strings(literal(lines["Got"]))
    if text is None or expected is None or got is None or len(text) > PICTURE_TEXT_LIMIT:
        return None
    if max(len(expected), len(got)) > PICTURE_CHUNK_LIMIT:
        return None
    return Comparison(text, expected, got)


def contiguous_starts(text: str, chunks: list[str]) -> list[int] | None:
    """Where each chunk starts if each one starts within or right after the one before.

    On repeated text a chunk appears in several places; the notebooks' picture
    takes the first one after the previous chunk's start. A chunker that skips
    its overlap is drawn truer by taking the last place that still touches the
    previous chunk.
    """
    starts: list[int] = []
    previous_start, previous_end = -1, 0
    for chunk in chunks:
        if not chunk:
            return None
        start = text.rfind(chunk, previous_start + 1, previous_end + len(chunk))
        if start < 0:
            start = text.find(chunk, previous_end)
        if start < 0:
            return None
        starts.append(start)
        previous_start, previous_end = start, start + len(chunk)
    return starts


def picture_of(text: str, chunks: list[str]) -> ChunkPicture:
    """The notebooks' picture, or the contiguous placement when it leaves less text in no chunk."""
    first = show_chunks(text, chunks)
    starts = contiguous_starts(text, chunks)
    if starts is None:
        return first
    other = show_chunks(text, chunks, starts)
    return other if other.coverage.count(0) < first.coverage.count(0) else first


def comparison_pictures(comparison: Comparison) -> tuple[tuple[str, ChunkPicture], ...]:
    """Expected and got, each as the notebooks draw chunks; every string made inert first."""
    text = inert(comparison.text)
    return tuple(
        (title, picture_of(text, [inert(chunk) for chunk in chunks]))
        for title, chunks in (("Expected", comparison.expected), ("Got", comparison.got))
    )
