# Alternative: ends right after the mark, drops the whitespace at a word cut, finds cuts with rfind.
"""Searches each window from the right with str.rfind.

A sentence chunk ends with its mark; a chunk cut between words leaves the
whitespace to the next chunk. Every chunk shares the document's own metadata dict.
"""

from __future__ import annotations

from typing import Any

MARKS = ".!?"


class ChunkingPipeline:
    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        problems = {
            "chunk_size must be at least 1": chunk_size <= 0,
            "overlap must not be negative": overlap < 0,
            "overlap must be smaller than chunk_size": overlap >= chunk_size,
            "min_chunk_size must not be negative": min_chunk_size < 0,
        }
        for message, broken in problems.items():
            if broken:
                raise ValueError(message)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.min_chunk_size = min_chunk_size

    def chunk_text(self, text: str) -> list[str]:
        return [text[start:end] for start, end in self._spans(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body")
        if body is None or body == "":
            return []
        metadata = doc.get("metadata")
        if metadata is None:
            metadata = {}
        return [
            {
                "doc_id": doc["id"],
                "chunk_index": i,
                "text": body[s:e],
                "char_start": s,
                "metadata": metadata,
            }
            for i, (s, e) in enumerate(self._spans(body))
        ]

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sum((self.process_document(doc) for doc in docs), [])

    def _spans(self, text: str) -> list[tuple[int, int]]:
        cuts = []
        start = 0
        while True:
            stop = start + self.chunk_size
            if stop >= len(text):
                cuts.append((start, len(text)))
                break
            end = self._cut(text, start, stop)
            cuts.append((start, end))
            start = end - self.overlap
        return [(s, e) for s, e in cuts if e - s >= self.min_chunk_size and e > s]

    def _cut(self, text: str, start: int, stop: int) -> int:
        lowest = start + self.overlap + 1
        # A mark at i ends the chunk at i + 1, so it must sit at lowest - 1 or later,
        # and before stop - 1 so that its whitespace is in the window too.
        mark = self._last_mark(text, max(start, lowest - 1), stop - 1)
        if mark >= 0:
            return mark + 1
        for j in range(stop - 1, max(start, lowest) - 1, -1):
            if text[j].isspace():
                return j
        return stop

    @staticmethod
    def _last_mark(text: str, lo: int, hi: int) -> int:
        """The last i in [lo, hi) with a mark at i and whitespace at i + 1, or -1."""
        while hi > lo:
            i = max(text.rfind(mark, lo, hi) for mark in MARKS)
            if i < 0:
                return -1
            if text[i + 1].isspace():
                return i
            hi = i
        return -1
