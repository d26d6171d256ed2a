# Alternative: scans every window from its start, noting each candidate cut (several times slower).
"""Looks at every character of each window, front to back, and keeps the last cut of each kind."""

from __future__ import annotations

from typing import Any


class ChunkingPipeline:
    def __init__(self, chunk_size=500, overlap=50, min_chunk_size=100):
        if chunk_size <= 0:
            raise ValueError("chunk_size must be positive")
        if overlap < 0 or min_chunk_size < 0:
            raise ValueError("overlap and min_chunk_size must not be negative")
        if overlap >= chunk_size:
            raise ValueError("overlap must be smaller than chunk_size")
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.min_chunk_size = min_chunk_size

    def find_end(self, text: str, start: int) -> int:
        stop = start + self.chunk_size
        lowest = start + self.overlap + 1
        sentence_end = None
        space_end = None
        for i in range(start, stop):
            char = text[i]
            if char.isspace():
                if i + 1 >= lowest:
                    space_end = i + 1
                if i > start and text[i - 1] in ".!?" and i + 1 >= lowest:
                    sentence_end = i + 1
        if sentence_end is not None:
            return sentence_end
        if space_end is not None:
            return space_end
        return stop

    def pieces(self, text: str) -> list[tuple[int, int]]:
        found = []
        start = 0
        while start < len(text):
            if start + self.chunk_size >= len(text):
                found.append((start, len(text)))
                break
            end = self.find_end(text, start)
            found.append((start, end))
            start = end - self.overlap
        return [(a, b) for a, b in found if b - a >= self.min_chunk_size]

    def chunk_text(self, text: str) -> list[str]:
        return [text[a:b] for a, b in self.pieces(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body")
        if body is None or len(body) == 0:
            return []
        meta = doc.get("metadata")
        chunks = []
        for index, (a, b) in enumerate(self.pieces(body)):
            chunks.append(
                {
                    "doc_id": doc["id"],
                    "chunk_index": index,
                    "text": body[a:b],
                    "char_start": a,
                    "metadata": dict(meta) if meta else {},
                }
            )
        return chunks

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        result = []
        for doc in docs:
            result.extend(self.process_document(doc))
        return result
