"""The rule checker of chunking_pipeline: every reading the stated rules allow is accepted.

Where each chunk may end is the suites' own `allowed_ends` (a sentence end kept
with or without its whitespace, a word cut kept with or without it, a hard cut
when nothing else is usable). Dropping short chunks is checked by search: the
answer must be what some allowed cutting leaves once its short chunks are
dropped, whichever readings that cutting took.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from chunklab.mutation.calls import RAN_TOO_LONG, Answer, Case, answer_of
from chunklab.mutation.window_rules import TERMINATES
from chunklab.suites.checks import same_value, shorten
from chunklab.suites.chunking_pipeline.hidden_cutting import allowed_ends
from chunklab.suites.chunking_pipeline.test_hidden import MIXED, SENTENCES
from chunklab.suites.chunking_pipeline.test_visible import CHUNK_KEYS, STORY, WORDS

DEFAULTS = {"chunk_size": 500, "overlap": 50, "min_chunk_size": 100}
SETTINGS_RULE = (
    "ChunkingPipeline(chunk_size=500, overlap=50, min_chunk_size=100), in that order; "
    "chunk_size <= 0, overlap < 0, overlap >= chunk_size and min_chunk_size < 0 raise "
    "ValueError, and only those."
)
CUTTING_RULE = (
    "chunk_text gives a list of str: an empty text gives []; otherwise the chunks of a cutting "
    "the rules allow (each window ends at its last usable sentence end, else its last usable "
    "whitespace, else after chunk_size characters; the last window whole), less those shorter "
    "than min_chunk_size."
)
DOCUMENT_RULE = (
    "process_document gives [] for a missing, None or empty body; else one plain dict per "
    "chunk_text chunk of the body, with doc_id (the id as given), chunk_index 0, 1, ..., "
    "text, char_start (where the chunk was cut from) and metadata (the document's, {} for "
    "none); the document is never changed."
)
BATCH_RULE = (
    "process_batch gives one flat list: for each document in order, what process_document "
    "gives for it."
)


def settings_of(args: tuple, kwargs: dict[str, int]) -> dict[str, int]:
    given = dict(zip(DEFAULTS, args, strict=False))
    return {**DEFAULTS, **given, **kwargs}


def valid(settings: dict[str, int]) -> bool:
    chunk_size, overlap, least = settings.values()
    return chunk_size > 0 and 0 <= overlap < chunk_size and least >= 0


def made_by_rules(
    text: str, settings: dict[str, int], pieces: Sequence[tuple[str, int | None]]
) -> bool:
    """Whether some allowed cutting of `text`, short chunks dropped, gives exactly `pieces`.

    Each piece is (text, where it was cut from), that place None when it is not given.
    """
    chunk_size, overlap, least = settings.values()
    if not text:
        return not pieces
    # (where a chunk is cut from, how many pieces came before it): a search over both.
    waiting, seen = [(0, 0)], set()
    while waiting:
        start, k = waiting.pop()
        last = start + chunk_size >= len(text)
        ends = [len(text)] if last else list(allowed_ends(text, start, chunk_size, overlap))
        for end in ends:
            piece, kept = text[start:end], end - start >= least
            if kept and not (k < len(pieces) and pieces[k][0] == piece):
                continue
            if kept and pieces[k][1] not in (None, start):
                continue
            after = k + 1 if kept else k
            if last and after == len(pieces):
                return True
            if not last and (end - overlap, after) not in seen:
                seen.add((end - overlap, after))
                waiting.append((end - overlap, after))
    return False


class PipelineRules:
    """ChunkingPipeline's settings, chunk_text, process_document and process_batch."""

    def cases(self, hidden: list[tuple]) -> Iterator[Case]:
        yield from self.settings_cases()
        settings = [(size, overlap) for size in range(1, 7) for overlap in range(size)]
        for length in range(9):
            for letters in itertools.product("a. ", repeat=length):
                text = "".join(letters)
                for size, overlap in settings:
                    yield self.case("chunk_text", (size, overlap, 0), {}, text)
                    if length <= 6 and size <= 4:
                        for least in (1, 2, 3):
                            yield self.case("chunk_text", (size, overlap, least), {}, text)
        yield from self.marks_cases()
        yield from self.document_cases()
        for text, (size, overlap), *dropping in hidden:
            for kept in sorted({0, *dropping}):
                yield self.case("chunk_text", (size, overlap, kept), {}, text)
        for text in (STORY, WORDS, SENTENCES, MIXED):
            for size, overlap in itertools.product((8, 13, 20, 31, 45), (0, 1, 3, 7)):
                yield self.case("chunk_text", (size, overlap, 0), {}, text)

    def settings_cases(self) -> Iterator[Case]:
        text = "a" * 1200
        for size, overlap, least in itertools.product((-1, 0, 1, 2), (-1, 0, 1, 2), (-1, 0, 1)):
            yield self.case("chunk_text", (size, overlap, least), {}, "ab cd")
        for keys in itertools.chain.from_iterable(
            itertools.combinations(DEFAULTS, n) for n in range(3)
        ):
            for value in (0, 60, 120):
                yield self.case("chunk_text", (), {key: value for key in keys}, text)
        # Just short of min_chunk_size's default, and exactly it.
        yield self.case("chunk_text", (), {}, "b" * 99)
        yield self.case("chunk_text", (), {}, "b" * 100)

    def marks_cases(self) -> Iterator[Case]:
        """Every character before a space, after a real sentence end in the same window."""
        others = string.ascii_letters + string.digits + string.punctuation + "\u2026\u3002\uff01"
        for char in others:
            for size, overlap in ((8, 0), (9, 2), (10, 1)):
                yield self.case("chunk_text", (size, overlap, 0), {}, f"Hi. A{char} bc de fg")

    def document_cases(self) -> Iterator[Case]:
        bodies: list[Any] = [None, "", " ", "Hi. Ok go on now. End", "Echo. " * 4]
        for body, metadata, doc_id in itertools.product(bodies, (None, {}, {"k": [1]}), ("d", 7)):
            doc: dict[str, Any] = {"id": doc_id, "title": "T"}
            if body is not None:
                doc["body"] = body
            if metadata is not None:
                doc["metadata"] = metadata
            for settings in ((6, 2, 0), (10, 1, 4)):
                yield self.case("process_document", settings, {}, doc)
        doc = {"id": "m", "title": "T", "body": "Hi. Ok go on.", "metadata": None}
        yield self.case("process_document", (8, 1, 0), {}, doc)
        docs = [
            {"id": "a", "title": "A", "body": "Hi. Ok go on now. End"},
            {"id": "b", "title": "B"},
            {"id": "a", "title": "A", "body": "Echo. " * 4, "metadata": {"k": 1}},
        ]
        for settings in ((6, 2, 0), (10, 1, 4)):
            yield self.case("process_batch", settings, {}, docs)

    def case(self, method: str, args: tuple, kwargs: dict[str, int], argument: Any) -> Case:
        shown = [str(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()]
        call = f"ChunkingPipeline({', '.join(shown)}).{method}({shorten(argument, 120)})"
        return Case(call, (method, args, kwargs, argument))

    def answer(self, code: ModuleType, case: Case) -> Answer:
        method, args, kwargs, argument = case.data

        def call(argument: Any) -> Any:
            instance = code.ChunkingPipeline(*args, **kwargs)
            answer = getattr(instance, method)(argument)
            if method != "process_batch":
                return answer
            # The batch and, on pipelines of their own, each document alone.
            alone = [code.ChunkingPipeline(*args, **kwargs).process_document(d) for d in argument]
            return {"batch": answer, "alone": alone}

        return answer_of(call, argument)

    def broken(self, case: Case, answer: Answer) -> str | None:
        method, args, kwargs, argument = case.data
        settings = settings_of(args, kwargs)
        if answer.outcome == RAN_TOO_LONG:
            return TERMINATES
        if not valid(settings):
            raised = answer.outcome == "raised" and answer.value == "ValueError"
            return None if raised else SETTINGS_RULE
        if answer.outcome != "returned":
            return SETTINGS_RULE if answer.value == "ValueError" else CUTTING_RULE
        if method == "chunk_text":
            chunks = answer.value
            kept = type(chunks) is list and all(type(chunk) is str for chunk in chunks)
            pieces = [(chunk, None) for chunk in chunks] if kept else []
            if kept and made_by_rules(argument, settings, pieces):
                return None
            return (
                CUTTING_RULE if len(args) + len(kwargs) == 3 else f"{SETTINGS_RULE} {CUTTING_RULE}"
            )
        if answer.changed:
            return DOCUMENT_RULE
        if method == "process_document":
            return None if document_fits(argument, settings, answer.value) else DOCUMENT_RULE
        batch, alone = answer.value["batch"], answer.value["alone"]
        if not all(map(document_fits, argument, itertools.repeat(settings), alone)):
            return DOCUMENT_RULE
        together = [chunk for chunks in alone for chunk in chunks]
        return None if same_value(batch, together) else BATCH_RULE


def document_fits(doc: dict[str, Any], settings: dict[str, int], chunks: Any) -> bool:
    body = doc.get("body")
    if not body:
        return same_value(chunks, [])
    if type(chunks) is not list or not all(type(chunk) is dict for chunk in chunks):
        return False
    if not all(set(CHUNK_KEYS) <= chunk.keys() for chunk in chunks):
        return False
    metadata = doc.get("metadata") or {}
    for index, chunk in enumerate(chunks):
        start, text = chunk["char_start"], chunk["text"]
        if not (same_value(chunk["doc_id"], doc["id"]) and same_value(chunk["chunk_index"], index)):
            return False
        if (
            type(start) is not int
            or type(text) is not str
            or body[start : start + len(text)] != text
        ):
            return False
        if not same_value(chunk["metadata"], metadata):
            return False
    return made_by_rules(body, settings, [(c["text"], c["char_start"]) for c in chunks])
