# Alternative: finds all cut points once and picks each with bisect; drops word-cut spaces.
"""Linear in the text: one pass finds every possible cut, bisect finds each chunk's.

A sentence chunk keeps one whitespace character after its mark; a chunk cut
between words ends just before the whitespace.
"""

import copy
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cuts:
    """Where a text may be cut, in increasing order."""

    sentence_ends: list[int]  # end of a chunk that keeps one whitespace after its mark
    spaces: list[int]  # index of every whitespace character

    @classmethod
    def of(cls, text: str) -> "Cuts":
        sentence_ends = [
            i + 2 for i in range(len(text) - 1) if text[i] in ".!?" and text[i + 1].isspace()
        ]
        spaces = [j for j, char in enumerate(text) if char.isspace()]
        return cls(sentence_ends, spaces)


class ChunkingPipeline:
    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        for name, value in (
            ("chunk_size", chunk_size - 1),
            ("overlap", overlap),
            ("min_chunk_size", min_chunk_size),
        ):
            if value < 0:
                raise ValueError(f"{name} is too small")
        if overlap >= chunk_size:
            raise ValueError("overlap must be less than chunk_size")
        self.chunk_size, self.overlap, self.min_chunk_size = chunk_size, overlap, min_chunk_size

    def chunk_text(self, text: str) -> list[str]:
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        cuts = Cuts.of(text)
        spans = []
        start = 0
        while start < len(text):
            stop = start + self.chunk_size
            end = len(text) if stop >= len(text) else self._end(cuts, start, stop)
            spans.append((start, end))
            start = end - self.overlap if end < len(text) else len(text)
        return [(s, e) for s, e in spans if e - s >= self.min_chunk_size]

    def _end(self, cuts: Cuts, start: int, stop: int) -> int:
        lowest = start + self.overlap + 1
        # The last sentence end at or before stop; its mark is inside the window
        # exactly when the end is at least start + 2.
        k = bisect_right(cuts.sentence_ends, stop) - 1
        if k >= 0 and cuts.sentence_ends[k] >= max(lowest, start + 2):
            return cuts.sentence_ends[k]
        k = bisect_right(cuts.spaces, stop - 1) - 1
        if k >= 0 and cuts.spaces[k] >= max(lowest, start):
            return cuts.spaces[k]
        return stop

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body") or ""
        metadata = doc.get("metadata") or {}
        return [
            {
                "doc_id": doc["id"],
                "chunk_index": index,
                "text": body[s:e],
                "char_start": s,
                "metadata": copy.deepcopy(metadata),
            }
            for index, (s, e) in enumerate(self.spans(body))
        ]

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [chunk for doc in docs for chunk in self.process_document(doc)]
