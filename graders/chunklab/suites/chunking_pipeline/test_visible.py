"""Public checks of the chunking_pipeline lesson, and the helpers both of its suites use.

The checks test the rules, not one particular chunking. Where the lesson leaves a
choice (keep the whitespace after a sentence mark or at a word cut, or not; one
whitespace character after the mark or the whole run of it), every choice that
keeps the rules is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from chunklab.suites.checks import Lazy, expect, expect_raises, fail, result_of, shorten

pytestmark = pytest.mark.visibility("visible")

SENTENCE_MARKS = ".!?"
CHUNK_KEYS = ("doc_id", "chunk_index", "text", "char_start", "metadata")


# --- Calling the submission ------------------------------------------------------------


def named(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`fn` under a name that feedback shows, such as `ChunkingPipeline(...).chunk_text`."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    call.__name__ = name
    return call


class Described:
    """Feedback text shown as it is, not as a quoted string."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def plain(value: Any) -> Described:
    """A returned value as feedback shows it, memory addresses left out so it never varies."""
    return Described(re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value)))


class Pipeline:
    """A ChunkingPipeline built by the submission; every call is named in feedback."""

    def __init__(self, submission: Any, **settings: int) -> None:
        # Settings left out keep the lesson's defaults.
        self.chunk_size = settings.get("chunk_size", 500)
        self.overlap = settings.get("overlap", 50)
        self.min_chunk_size = settings.get("min_chunk_size", 100)
        self.settings = settings
        self.instance = result_of(submission.ChunkingPipeline, **settings)

    @property
    def label(self) -> str:
        shown = ", ".join(f"{name}={value}" for name, value in self.settings.items())
        return f"ChunkingPipeline({shown})"

    def method(self, name: str) -> Callable[..., Any]:
        return named(getattr(self.instance, name), f"{self.label}.{name}")

    def given(self, name: str, argument: Any) -> Lazy:
        return Lazy(lambda: f"{self.label}.{name}({shorten(argument, 120)})")

    def chunk_text(self, text: str) -> list[str]:
        chunks = result_of(self.method("chunk_text"), text)
        expect_str_list(chunks, self.given("chunk_text", text))
        return chunks

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        chunks = result_of(self.method("process_document"), doc)
        expect_chunk_dicts(chunks, self.given("process_document", doc))
        return chunks

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        chunks = result_of(self.method("process_batch"), docs)
        expect_chunk_dicts(chunks, self.given("process_batch", docs))
        return chunks


def keep_all(submission: Any, chunk_size: int, overlap: int) -> Pipeline:
    """A pipeline that drops nothing (min_chunk_size 0), to see every cut."""
    return Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=0)


def expect_str_list(value: Any, given: str | Lazy) -> None:
    # Feedback is built only on failure: these run on every answer of every test.
    if not isinstance(value, list):
        fail(given=given, expected="a list of str", got=plain(value))
    for k, chunk in enumerate(value):
        if not isinstance(chunk, str):
            fail(given=given, expected=f"chunk {k} to be a str", got=plain(chunk))


def expect_chunk_dicts(value: Any, given: str | Lazy) -> None:
    if not isinstance(value, list):
        fail(given=given, expected="a list of chunk dicts", got=plain(value))
    for k, chunk in enumerate(value):
        if not isinstance(chunk, dict):
            fail(given=given, expected=f"chunk {k} to be a dict", got=plain(chunk))
        missing = [key for key in CHUNK_KEYS if key not in chunk]
        if missing:
            fail(
                given=given,
                expected=f"chunk {k} to have the keys {', '.join(CHUNK_KEYS)} "
                f"(missing: {', '.join(missing)})",
                got=plain(chunk),
            )
        for key, kind in (("text", str), ("char_start", int), ("chunk_index", int)):
            # bool is an int in Python, but True is no position.
            if not isinstance(chunk[key], kind) or isinstance(chunk[key], bool):
                fail(
                    given=given,
                    expected=f"chunk {k}'s {key} to be a {kind.__name__}",
                    got=plain(chunk[key]),
                )


def expect_chunks(pipe: Pipeline, text: str, expected: list[str]) -> None:
    """chunk_text must return exactly `expected` (for texts where the rules leave no choice)."""
    chunks = pipe.chunk_text(text)
    expect(
        chunks == expected,
        given=pipe.given("chunk_text", text),
        expected=shorten(expected),
        got=chunks,
    )


# --- The cutting rules, as checks ---------------------------------------------------------


def cut_starts(text: str, overlap: int, chunks: list[str], given: str | Lazy) -> list[int]:
    """Where each chunk was cut from, after checking the chunks are consecutive pieces.

    The first chunk starts at 0, each next one `overlap` characters before the one
    before it ended, and the last one ends where the text ends.
    """
    starts = []
    start = 0
    for k, chunk in enumerate(chunks):
        piece = text[start : start + len(chunk)]
        if chunk != piece:
            where = (
                "the beginning of the text"
                if k == 0
                else f"the last {overlap} characters of chunk {k - 1} followed by the text after it"
            )
            fail(
                given=given,
                expected=f"chunk {k} to be {where} (from character {start}): {shorten(piece, 160)}",
                got=chunk,
            )
        starts.append(start)
        if k + 1 < len(chunks) and len(chunk) <= overlap:
            fail(
                given=given,
                expected=f"chunk {k} to be longer than the overlap ({overlap}), so the next "
                "chunk starts after it",
                got=chunk,
            )
        start += len(chunk) - overlap
    last_end = starts[-1] + len(chunks[-1]) if chunks else 0
    expect(
        last_end == len(text),
        given=given,
        expected=f"the last chunk to end where the text ends (character {len(text)})",
        got=chunks[-1] if chunks else chunks,
    )
    return starts


def allowed_ends(text: str, start: int, chunk_size: int, overlap: int) -> dict[int, str]:
    """Every place a chunk cut at `start` may end, and which rule puts it there.

    Only for a window that does not reach the end of the text. Each way of reading
    the open choices gives one end; all of them are allowed.
    """
    stop = start + chunk_size
    # An end below this would not move the next chunk (which starts `overlap`
    # characters before the end) past this chunk's start.
    lowest = start + overlap + 1
    ends: dict[int, str] = {}
    fall_back = True
    # The last sentence mark followed by whitespace in the window, searched from its end.
    mark = next(
        (
            i
            for i in range(stop - 2, start - 1, -1)
            if text[i] in SENTENCE_MARKS and text[i + 1].isspace()
        ),
        None,
    )
    if mark is not None:
        run_end = mark + 1
        while run_end < stop and text[run_end].isspace():
            run_end += 1
        # Right after the mark, after one whitespace character, after the whole run.
        readings = (mark + 1, mark + 2, run_end)
        ends.update({end: "sentence" for end in readings if end >= lowest})
        fall_back = any(end < lowest for end in readings)
    if not fall_back:
        return ends
    space = next((j for j in range(stop - 1, start - 1, -1) if text[j].isspace()), None)
    hard_cut = space is None
    if space is not None:
        run_start = space
        while run_start > start and text[run_start - 1].isspace():
            run_start -= 1
        # Keeping the whitespace, dropping it, or dropping the whole run before the cut.
        for end in (space + 1, space, run_start):
            if end >= lowest:
                ends.setdefault(end, "word")
            else:
                hard_cut = True
    if hard_cut:
        ends.setdefault(stop, "hard")
    return ends


def describe_ends(text: str, start: int, chunk_size: int, ends: dict[int, str]) -> str:
    rules = {
        "sentence": "at the last usable sentence end in its window (right after the mark, "
        "or after the whitespace that follows it)",
        "word": "at the last usable whitespace in its window, so that no word is cut",
        "hard": f"after exactly chunk_size ({chunk_size}) characters, as its window has no "
        "usable sentence end or whitespace",
    }
    said = " or ".join(dict.fromkeys(rules[kind] for kind in ends.values()))
    tails = " or ".join(shorten(text[max(start, end - 24) : end], 60) for end in sorted(ends))
    return f"{said}; that is, to end with {tails}"


def check_endings(
    text: str,
    chunk_size: int,
    overlap: int,
    chunks: list[str],
    starts: list[int],
    given: str | Lazy,
) -> None:
    """Every chunk ends where the cutting rules say, given where it starts."""

    def about(k: int, start: int) -> str:
        window = text[start : start + chunk_size]
        return f"chunk {k} (cut from character {start}; its window is {shorten(window, 90)})"

    for k, (chunk, start) in enumerate(zip(chunks, starts, strict=True)):
        if start + chunk_size >= len(text):
            if k != len(chunks) - 1:
                fail(
                    given=given,
                    expected=f"{about(k, start)} to be the last chunk, as its window reaches "
                    "the end of the text",
                    got=chunks[k + 1 :],
                )
            continue
        ends = allowed_ends(text, start, chunk_size, overlap)
        if start + len(chunk) not in ends:
            fail(
                given=given,
                expected=f"{about(k, start)} to end {describe_ends(text, start, chunk_size, ends)}",
                got=chunk,
            )


def check_cuts(pipe: Pipeline, text: str) -> list[str]:
    """chunk_text's chunks of `text` (min_chunk_size 0), checked against every cutting rule."""
    given = pipe.given("chunk_text", text)
    chunks = pipe.chunk_text(text)
    starts = cut_starts(text, pipe.overlap, chunks, given)
    check_endings(text, pipe.chunk_size, pipe.overlap, chunks, starts, given)
    return chunks


# --- Texts -------------------------------------------------------------------------------

STORY = (
    "The cat sat on the mat. It purred! Did it sleep? Not yet. It watched the birds "
    "outside the window for a long while. Then it yawned. The sun went down slowly. "
    "Night came! The birds were gone. Was the cat sad? No. It slept at last."
)
WORDS = (
    "the quick brown fox jumps over the lazy dog and then keeps on running far "
    "away across the quiet green fields until evening"
)


# --- Settings -----------------------------------------------------------------------------


@pytest.mark.rule("A chunk_size of 0 or less raises ValueError.")
@pytest.mark.points(1)
def test_chunk_size_must_be_positive(submission):
    expect_raises(submission.ChunkingPipeline, (), ValueError, chunk_size=0)
    expect_raises(submission.ChunkingPipeline, (), ValueError, chunk_size=-5, overlap=0)


@pytest.mark.rule("A negative overlap or a negative min_chunk_size raises ValueError.")
@pytest.mark.points(1)
def test_negative_settings_raise(submission):
    expect_raises(submission.ChunkingPipeline, (), ValueError, chunk_size=50, overlap=-1)
    expect_raises(
        submission.ChunkingPipeline, (), ValueError, chunk_size=50, overlap=5, min_chunk_size=-1
    )


@pytest.mark.rule("An overlap equal to or larger than chunk_size raises ValueError.")
@pytest.mark.points(1)
def test_overlap_must_be_smaller_than_chunk_size(submission):
    expect_raises(submission.ChunkingPipeline, (), ValueError, chunk_size=20, overlap=20)
    expect_raises(submission.ChunkingPipeline, (), ValueError, chunk_size=20, overlap=35)


# --- chunk_text ---------------------------------------------------------------------------


@pytest.mark.rule(
    "A text that fits in one window (at most chunk_size characters) is one chunk, whole."
)
@pytest.mark.points(1)
def test_text_that_fits_is_one_chunk(submission):
    pipe = keep_all(submission, 40, 10)
    exactly_forty = "Forty characters. Exactly that many! Ok."
    for text in ("x", "One sentence. Then another.", exactly_forty):
        expect_chunks(pipe, text, [text])


@pytest.mark.rule(
    "Chunks are consecutive pieces of the text: the first starts at its beginning, each next "
    "one starts with the last overlap characters of the one before, and the last one ends "
    "where the text ends."
)
@pytest.mark.points(2)
def test_chunks_are_overlapping_pieces(submission):
    for chunk_size, overlap, text in ((50, 12, STORY), (30, 0, STORY), (25, 6, WORDS)):
        pipe = keep_all(submission, chunk_size, overlap)
        chunks = pipe.chunk_text(text)
        cut_starts(text, overlap, chunks, pipe.given("chunk_text", text))


@pytest.mark.rule("No chunk is longer than chunk_size characters.")
@pytest.mark.points(1)
def test_no_chunk_longer_than_chunk_size(submission):
    long_words = "internationalization characterization responsibilities overwhelmingly"
    for chunk_size, overlap, text in ((50, 12, STORY), (25, 5, long_words), (12, 3, WORDS)):
        pipe = keep_all(submission, chunk_size, overlap)
        for chunk in pipe.chunk_text(text):
            expect(
                len(chunk) <= chunk_size,
                given=pipe.given("chunk_text", text),
                expected=f"every chunk to have at most {chunk_size} characters",
                got=chunk,
            )


@pytest.mark.rule(
    "A chunk ends at the last sentence end in its window (a ., ! or ? followed by whitespace, "
    "both inside the window), right after the mark or after that whitespace."
)
@pytest.mark.points(2)
def test_ends_at_last_sentence_end(submission):
    for chunk_size, overlap in ((40, 8), (60, 15), (35, 0)):
        pipe = keep_all(submission, chunk_size, overlap)
        check_cuts(pipe, STORY)


@pytest.mark.rule(
    "With no sentence end in its window, a chunk ends at the last whitespace in it (keeping that "
    "whitespace or not), so no word is cut."
)
@pytest.mark.points(2)
def test_ends_at_last_whitespace(submission):
    for chunk_size, overlap in ((20, 5), (33, 10), (16, 0)):
        pipe = keep_all(submission, chunk_size, overlap)
        check_cuts(pipe, WORDS)


@pytest.mark.rule(
    "With no whitespace in its window, a chunk is cut after exactly chunk_size characters."
)
@pytest.mark.points(1)
def test_hard_cut_without_whitespace(submission):
    text = "abcdefghijklmnopqrstuvwxyz" * 3
    pipe = keep_all(submission, 30, 5)
    expect_chunks(pipe, text, [text[0:30], text[25:55], text[50:78]])


@pytest.mark.rule(
    "Chunks shorter than min_chunk_size are dropped (not merged) after cutting; a chunk exactly "
    "min_chunk_size long is kept."
)
@pytest.mark.points(2)
def test_short_chunks_dropped(submission):
    text = (
        "Hi. Everything here is fine. Ok. The weather stays calm and dry today. No. "
        "Tomorrow brings more of the same, they say."
    )
    cutter = keep_all(submission, 30, 4)
    every = cutter.chunk_text(text)
    expect(
        len(every) > 1, given=cutter.given("chunk_text", text), expected="several chunks", got=every
    )
    shortest = min(len(chunk) for chunk in every)
    for least in (shortest, shortest + 1, 12):
        pipe = Pipeline(submission, chunk_size=30, overlap=4, min_chunk_size=least)
        expect_chunks(pipe, text, [chunk for chunk in every if len(chunk) >= least])


# --- process_document and process_batch ------------------------------------------------


@pytest.mark.rule(
    "process_document gives each chunk doc_id, chunk_index, text, char_start and metadata."
)
@pytest.mark.points(1)
def test_document_chunk_fields(submission):
    body = "abcdefghijklmnopqrstuvwxyz" * 2
    doc = {"id": "doc-1", "title": "Alphabet", "body": body, "metadata": {"source": "abc"}}
    pipe = keep_all(submission, 20, 5)
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    expected = [
        {
            "doc_id": "doc-1",
            "chunk_index": index,
            "text": body[start:end],
            "char_start": start,
            "metadata": {"source": "abc"},
        }
        for index, (start, end) in enumerate(((0, 20), (15, 35), (30, 50), (45, 52)))
    ]
    expect(
        len(chunks) == len(expected),
        given=given,
        expected=f"{len(expected)} chunks: {shorten(expected)}",
        got=chunks,
    )
    for k, (chunk, wanted) in enumerate(zip(chunks, expected, strict=True)):
        shown = {key: chunk[key] for key in CHUNK_KEYS}
        expect(shown == wanted, given=given, expected=f"chunk {k} to be {wanted}", got=plain(chunk))


@pytest.mark.rule("Each chunk's text is body[char_start:char_start + len(text)].")
@pytest.mark.points(1)
def test_char_start_locates_text(submission):
    doc = {"id": "story", "title": "A cat", "body": STORY}
    for chunk_size, overlap, least in ((40, 8, 0), (50, 10, 30)):
        pipe = Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=least)
        chunks = pipe.process_document(doc)
        expect(
            chunks != [],
            given=pipe.given("process_document", doc),
            expected="some chunks",
            got=chunks,
        )
        for k, chunk in enumerate(chunks):
            start, text = chunk["char_start"], chunk["text"]
            expect(
                STORY[start : start + len(text)] == text and start >= 0,
                given=pipe.given("process_document", doc),
                expected=f"chunk {k}'s text to be body[{start}:{start + len(text)}]: "
                f"{shorten(STORY[start : start + len(text)], 120)}",
                got=text,
            )


@pytest.mark.rule("A document whose body is missing, None or empty gives an empty list.")
@pytest.mark.points(1)
def test_no_body_gives_no_chunks(submission):
    pipe = keep_all(submission, 40, 10)
    for doc in (
        {"id": "a", "title": "No body"},
        {"id": "b", "title": "None", "body": None},
        {"id": "c", "title": "Empty", "body": "", "metadata": {"k": 1}},
    ):
        chunks = pipe.process_document(doc)
        expect(chunks == [], given=pipe.given("process_document", doc), expected="[]", got=chunks)


@pytest.mark.rule(
    "process_batch returns one flat list: the documents in input order, each document's chunks "
    "in order."
)
@pytest.mark.points(1)
def test_batch_is_flat_and_in_order(submission):
    docs = [
        {"id": "zeta", "title": "Words", "body": WORDS},
        {"id": "alpha", "title": "Nothing", "body": ""},
        {"id": "mu", "title": "Story", "body": STORY, "metadata": {"lang": "en"}},
    ]
    pipe = keep_all(submission, 30, 5)
    expected = [chunk for doc in docs for chunk in pipe.process_document(doc)]
    batch = pipe.process_batch(docs)
    given = pipe.given("process_batch", docs)
    expect(
        len(batch) == len(expected),
        given=given,
        expected=f"{len(expected)} chunks, those process_document gives for each document in turn",
        got=batch,
    )
    for k, (chunk, wanted) in enumerate(zip(batch, expected, strict=True)):
        expect(
            chunk == wanted,
            given=given,
            expected=f"chunk {k} of the batch to be {shorten(wanted, 160)}",
            got=plain(chunk),
        )
