# Alternative: ends after the mark if that moves forward, else after the whitespace run.
"""Chunks are produced lazily as Chunk records, then turned into dicts.

A sentence chunk ends right after its mark when that lets the next chunk move
forward, and otherwise after the run of whitespace that follows the mark. A
chunk cut between words keeps the whitespace.
"""

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from itertools import chain
from typing import Any


@dataclass
class Chunk:
    doc_id: Any
    chunk_index: int
    text: str
    char_start: int
    metadata: dict[str, Any]


def is_sentence_end(text: str, i: int, stop: int) -> bool:
    return text[i] in ".!?" and i + 1 < stop and text[i + 1].isspace()


class ChunkingPipeline:
    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        if chunk_size < 1 or overlap < 0 or min_chunk_size < 0 or overlap >= chunk_size:
            raise ValueError(
                "need chunk_size >= 1, 0 <= overlap < chunk_size and min_chunk_size >= 0; got "
                f"chunk_size={chunk_size}, overlap={overlap}, min_chunk_size={min_chunk_size}"
            )
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.min_chunk_size = min_chunk_size

    def chunk_text(self, text: str) -> list[str]:
        return [text[s:e] for s, e in self._kept(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        body = doc.get("body")
        if not body:
            return []
        metadata = {**(doc.get("metadata") or {})}
        chunks = (
            Chunk(doc["id"], index, body[s:e], s, {**metadata})
            for index, (s, e) in enumerate(self._kept(body))
        )
        return [asdict(chunk) for chunk in chunks]

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(chain.from_iterable(map(self.process_document, docs)))

    def _kept(self, text: str) -> Iterator[tuple[int, int]]:
        return ((s, e) for s, e in self._cuts(text) if e - s >= self.min_chunk_size)

    def _cuts(self, text: str) -> Iterator[tuple[int, int]]:
        start = 0
        while start < len(text):
            stop = start + self.chunk_size
            if stop >= len(text):
                yield start, len(text)
                return
            end = self._end(text, start, stop)
            yield start, end
            start = end - self.overlap

    def _end(self, text: str, start: int, stop: int) -> int:
        lowest = start + self.overlap + 1
        marks = [i for i in range(start, stop) if is_sentence_end(text, i, stop)]
        if marks:
            after_mark = marks[-1] + 1
            if after_mark >= lowest:
                return after_mark
            after_run = after_mark
            while after_run < stop and text[after_run].isspace():
                after_run += 1
            if after_run >= lowest:
                return after_run
        for j in reversed(range(max(start, lowest - 1), stop)):
            if text[j].isspace():
                return j + 1
        return stop
