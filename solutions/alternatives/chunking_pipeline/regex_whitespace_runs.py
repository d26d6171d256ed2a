# Alternative: regex; keeps the whole whitespace run after a mark, drops it at a word cut.
"""Finds cuts with re.finditer over each window.

A sentence end keeps every whitespace character that follows the mark inside the
window; a cut between words ends before the last run of whitespace.
"""

from __future__ import annotations

import re
from typing import Any

# Python's \s matches exactly the characters str.isspace accepts.
SENTENCE_END = re.compile(r"[.!?]\s+")
WHITESPACE_RUN = re.compile(r"\s+")


class ChunkingPipeline:
    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        if chunk_size <= 0:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        if not 0 <= overlap < chunk_size:
            raise ValueError(f"overlap must be in [0, chunk_size), got {overlap}")
        if min_chunk_size < 0:
            raise ValueError(f"min_chunk_size must not be negative, got {min_chunk_size}")
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.min_chunk_size = min_chunk_size

    def chunk_text(self, text: str) -> list[str]:
        return [piece for _, piece in self._pieces(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body") or ""
        metadata = doc.get("metadata")
        chunks = []
        for index, (start, piece) in enumerate(self._pieces(body)):
            chunks.append(
                {
                    "doc_id": doc["id"],
                    "chunk_index": index,
                    "text": piece,
                    "char_start": start,
                    "metadata": dict(metadata) if metadata else {},
                }
            )
        return chunks

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        chunks: list[dict[str, Any]] = []
        for doc in docs:
            chunks.extend(self.process_document(doc))
        return chunks

    def _pieces(self, text: str) -> list[tuple[int, str]]:
        """(start, text) of the chunks long enough to keep."""
        pieces = []
        start = 0
        while start < len(text):
            end = self._end(text, start)
            if end - start >= self.min_chunk_size:
                pieces.append((start, text[start:end]))
            if end == len(text):
                break
            start = end - self.overlap
        return pieces

    def _end(self, text: str, start: int) -> int:
        stop = start + self.chunk_size
        if stop >= len(text):
            return len(text)
        window = text[start:stop]
        # Offsets in the window below this would not move the next chunk forward.
        lowest = self.overlap + 1
        sentence_ends = [m.end() for m in SENTENCE_END.finditer(window) if m.end() >= lowest]
        if sentence_ends:
            return start + sentence_ends[-1]
        gaps = [m.start() for m in WHITESPACE_RUN.finditer(window) if m.start() >= lowest]
        if gaps:
            return start + gaps[-1]
        return stop
