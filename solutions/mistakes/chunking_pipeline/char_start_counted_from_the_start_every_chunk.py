# Mistake: char_start counted by joining the body read so far anew for every chunk (right, but the work grows with the square of the text).

from __future__ import annotations

import copy
from typing import Any

SENTENCE_MARKS = ".!?"


class ChunkingPipeline:
    """Cuts texts into overlapping chunks of at most `chunk_size` characters."""

    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        # Validate at once: a bad setting found later would surface as a hang or a wrong cut.
        if chunk_size <= 0:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        if overlap < 0:
            raise ValueError(f"overlap must be 0 or more, got {overlap}")
        if overlap >= chunk_size:
            raise ValueError(
                f"overlap ({overlap}) must be smaller than chunk_size ({chunk_size}), "
                "or the chunks could never move forward"
            )
        if min_chunk_size < 0:
            raise ValueError(f"min_chunk_size must be 0 or more, got {min_chunk_size}")
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.min_chunk_size = min_chunk_size

    def chunk_text(self, text: str) -> list[str]:
        """The chunks of `text`, short ones dropped."""
        return [text[start:end] for start, end in self._kept_spans(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks of `doc["body"]` as dicts that say where each one came from."""
        body = doc.get("body")
        if not body:
            return []
        metadata = doc.get("metadata") or {}
        chunks = []
        read = []  # the body read so far, a piece per chunk
        for start, end in self._spans(body):
            char_start = len("".join(read))
            read.append(body[char_start:end - self.overlap] if end < len(body) else "")
            if end - start < self.min_chunk_size:
                continue
            chunks.append(
                {
                    "doc_id": doc["id"],
                    "chunk_index": len(chunks),
                    "text": body[start:end],
                    "char_start": char_start,
                    "metadata": copy.deepcopy(metadata),
                }
            )
        return chunks

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The chunks of every document, in order, in one flat list."""
        return [chunk for doc in docs for chunk in self.process_document(doc)]

    def _kept_spans(self, text: str) -> list[tuple[int, int]]:
        # Filtering the finished spans (rather than inside the cutting loop) is what
        # keeps every other chunk's start where the cutting put it.
        return [(s, e) for s, e in self._spans(text) if e - s >= self.min_chunk_size]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Every chunk's (start, end), before any is dropped."""
        spans = []
        start = 0
        while start < len(text):
            window_end = start + self.chunk_size
            if window_end >= len(text):
                spans.append((start, len(text)))
                break
            end = self._cut(text, start, window_end)
            spans.append((start, end))
            # _cut guarantees end - overlap > start, so this loop always advances.
            start = end - self.overlap
        return spans

    def _cut(self, text: str, start: int, window_end: int) -> int:
        """Where the chunk starting at `start` ends, its window being text[start:window_end]."""
        # A cut is usable only if the next chunk, which starts `overlap` characters
        # before it, starts after this one: the end must reach at least `lowest`.
        lowest = start + self.overlap + 1
        # The last sentence end: a mark at i, whitespace at i + 1, both in the window.
        # The chunk keeps that whitespace (end = i + 2), so scan i down to lowest - 2.
        for i in range(window_end - 2, max(start, lowest - 2) - 1, -1):
            if text[i] in SENTENCE_MARKS and text[i + 1].isspace():
                return i + 2
        # No usable sentence end: the last whitespace, kept in the chunk (end = j + 1).
        for j in range(window_end - 1, max(start, lowest - 1) - 1, -1):
            if text[j].isspace():
                return j + 1
        # One long word fills the window: cutting inside it is the only way forward.
        return window_end
