# Alternative: a sentence chunk keeps all the whitespace after its mark, up to the window's end.
from __future__ import annotations

from typing import Any


class ChunkingPipeline:
    MARKS = (".", "!", "?")

    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100):
        if chunk_size <= 0:
            raise ValueError("chunk_size must be > 0")
        if overlap < 0:
            raise ValueError("overlap must be >= 0")
        if overlap >= chunk_size:
            raise ValueError("overlap must be < chunk_size")
        if min_chunk_size < 0:
            raise ValueError("min_chunk_size must be >= 0")
        self.chunk_size, self.overlap, self.min_chunk_size = chunk_size, overlap, min_chunk_size

    def _end(self, text: str, start: int) -> int:
        stop = start + self.chunk_size
        first_ok = start + self.overlap + 1
        for i in range(stop - 2, start - 1, -1):
            if text[i] in self.MARKS and text[i + 1].isspace():
                end = i + 1
                while end < stop and text[end].isspace():
                    end += 1
                if end >= first_ok:
                    return end
                break
        for j in range(stop - 1, start - 1, -1):
            if text[j].isspace() and j + 1 >= first_ok:
                return j + 1
        return stop

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, start = [], 0
        while start < len(text):
            if start + self.chunk_size >= len(text):
                spans.append((start, len(text)))
                break
            end = self._end(text, start)
            spans.append((start, end))
            start = end - self.overlap
        return [(a, b) for a, b in spans if b - a >= self.min_chunk_size]

    def chunk_text(self, text: str) -> list[str]:
        return [text[a:b] for a, b in self._spans(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body") or ""
        metadata = doc.get("metadata") or {}
        return [
            {
                "doc_id": doc["id"],
                "chunk_index": n,
                "text": body[a:b],
                "char_start": a,
                "metadata": dict(metadata),
            }
            for n, (a, b) in enumerate(self._spans(body))
        ]

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [chunk for doc in docs for chunk in self.process_document(doc)]
