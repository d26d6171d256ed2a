# Alternative: slow but correct, and keeps the spans of each text up to 50,000 characters
# long on the pipeline: process_document of a text chunk_text was given costs nothing.
from __future__ import annotations

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
        # Spans by text; long texts are not kept, so the memory a pipeline holds stays small.
        self._spans_seen: dict[str, list[tuple[int, int]]] = {}

    def chunk_text(self, text: str) -> list[str]:
        """The chunks of `text`, short ones dropped."""
        return [text[start:end] for start, end in self._kept_spans(text)]

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks of `doc["body"]` as dicts that say where each one came from."""
        body = doc.get("body")
        if not body:
            return []
        metadata = doc.get("metadata") or {}
        return [
            {
                "doc_id": doc["id"],
                "chunk_index": index,
                "text": body[start:end],
                "char_start": start,
                # A copy per chunk: whoever edits a chunk's metadata later must not
                # be editing the caller's document (its values are plain, so one level).
                "metadata": dict(metadata),
            }
            for index, (start, end) in enumerate(self._kept_spans(body))
        ]

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The chunks of every document, in order, in one flat list."""
        return [chunk for doc in docs for chunk in self.process_document(doc)]

    def _kept_spans(self, text: str) -> list[tuple[int, int]]:
        # Filtering the finished spans (rather than inside the cutting loop) is what
        # keeps every other chunk's start where the cutting put it.
        return [(s, e) for s, e in self._spans(text) if e - s >= self.min_chunk_size]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Every chunk's (start, end), before any is dropped; worked out once per short text."""
        if text in self._spans_seen:
            return self._spans_seen[text]
        spans = self._scanned_spans(text)
        if len(text) <= 50_000:
            self._spans_seen[text] = spans
        return spans

    def _scanned_spans(self, text: str) -> list[tuple[int, int]]:
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
        """Where the chunk starting at `start` ends: the last usable cut of a forward scan."""
        lowest = start + self.overlap + 1
        sentence_end = word_end = 0
        for i in range(start, window_end):
            if i + 1 < window_end and text[i] in SENTENCE_MARKS and text[i + 1].isspace():
                if i + 2 >= lowest:
                    sentence_end = i + 2
            if text[i].isspace() and i + 1 >= lowest:
                word_end = i + 1
        return sentence_end or word_end or window_end
