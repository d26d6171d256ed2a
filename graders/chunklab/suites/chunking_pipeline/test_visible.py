"""Public checks of the chunking_pipeline lesson, and the helpers both of its suites use.

The checks test the rules, not one particular chunking. Where the lesson leaves a
choice (keep the whitespace after a sentence mark or at a word cut, or not; one
whitespace character after the mark or the whole run of it), every choice that
keeps the rules is accepted. The public checks of where chunks end carry fixed
tables of the ends the rules allow on their texts (`public_cuts.json`), never
the code that works them out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from chunklab.contract import CallTimedOut, WorkerCrashed
from chunklab.suites.checks import (
    Lazy,
    building_on,
    expect,
    expect_list_of_strings,
    expect_raises,
    fail,
    named_call_text,
    result_of,
    shorten,
)

pytestmark = pytest.mark.visibility("visible")

SENTENCE_MARKS = ".!?"
CHUNK_KEYS = ("doc_id", "chunk_index", "text", "char_start", "metadata")

# The basic rules the other cutting checks build on, as their markers state them.
LENGTH_RULE = (
    "No chunk is longer than chunk_size characters, so a text longer than that takes "
    "several chunks."
)
PIECES_RULE = (
    "Chunks are consecutive pieces of the text: the first starts at its beginning, each next "
    "one starts with the last overlap characters of the one before, and the last one ends "
    "where the text ends."
)


# --- Calling the submission ------------------------------------------------------------


def named(
    fn: Callable[..., Any],
    name: str,
    on_call: Callable[[], None] | None = None,
    history: Callable[[], str] | None = None,
) -> Callable[..., Any]:
    """`fn` under a name that feedback shows, such as `ChunkingPipeline(...).chunk_text`.

    `on_call`, when given, is told of every call before it is made; `history`
    says what came before a call that did not finish (see `answered_before`).
    """
    return Named(fn, name, on_call, history)


class Named:
    """A call under the name feedback shows (see `named`); made for nearly every call a
    pipeline test makes, so it holds four fields and nothing else."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        on_call: Callable[[], None] | None,
        history: Callable[[], str] | None = None,
    ) -> None:
        self.__wrapped__ = fn
        self.__name__ = name
        self.on_call = on_call
        self.history = history

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.on_call is not None:
            self.on_call()
        try:
            return self.__wrapped__(*args, **kwargs)
        except (CallTimedOut, WorkerCrashed) as stopped:
            # The proxy names the method only; the settings, and the calls the pipeline
            # answered before, make the call reproducible.
            _, _, why = str(stopped).partition("\n")
            before = self.history() if self.history is not None else ""
            kind = type(stopped)  # a runaway in memory stays one
            call = named_call_text(self.__name__, args, kwargs)
            raise kind(f"Input: {call}{before}\n{why}") from None

    def __getattr__(self, way: str) -> Any:
        # A call into a worker asked by digest (and timed) keeps the name too.
        if way in ("expecting", "measuring"):
            ask = getattr(self.__wrapped__, way)
            return lambda *asked: named(ask(*asked), self.__name__)
        raise AttributeError(way)


def answered_before(count: int) -> str:
    """What feedback adds to a call on a pipeline that had answered `count` calls before it:
    an answer that depends on them is reproducible only when feedback says so."""
    if not count:
        return ""
    calls = "call" if count == 1 else "calls"
    return f", on a pipeline that had already answered {count} other {calls}"


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
        self.submission = submission
        # Calls made through `method`, and how many came before the latest: an answer that
        # depends on earlier calls is reproducible only when feedback says there were some.
        self.calls = 0
        self.calls_before_latest = 0
        shown = ", ".join(f"{name}={value}" for name, value in settings.items())
        self.label = f"ChunkingPipeline({shown})"
        self.instance = result_of(submission.ChunkingPipeline, (), **settings)

    def fresh(self) -> Pipeline:
        """Another pipeline with the same settings, untouched by this one's calls."""
        return Pipeline(self.submission, **self.settings)

    def method(self, name: str) -> Callable[..., Any]:
        call = getattr(self.instance, name)
        return named(call, f"{self.label}.{name}", self.count_call, self.history)

    def history(self) -> str:
        return answered_before(self.calls_before_latest)

    def count_call(self) -> None:
        self.calls_before_latest = self.calls
        self.calls += 1

    def given(self, name: str, argument: Any) -> Lazy:
        """The call as feedback names it; made after the call, it says what came before."""
        before = self.calls_before_latest
        return Lazy(
            lambda: f"{self.label}.{name}({shorten(argument, 120)}){answered_before(before)}"
        )

    def ahead(self, name: str, arguments: Iterable[Any]) -> list[Any]:
        """Send the calls `name(argument)` of this pipeline a check is about to make together
        (see `cuts_ahead`); gives back the arguments, for the check to make the calls."""
        arguments = list(arguments)
        with self.submission.ahead() as later:
            method = getattr(later.on(self.instance), name)
            for argument in arguments:
                method(argument)
        return arguments

    def chunk_text(self, text: str) -> list[str]:
        chunks = result_of(self.method("chunk_text"), (text,))
        # `given` becomes text only on a failure: chunk_text answers in nearly every test.
        given = self.given("chunk_text", text)
        return expect_list_of_strings(chunks, given=given, expected="a list of str", item="chunk")

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        chunks = result_of(self.method("process_document"), (doc,))
        expect_chunk_dicts(chunks, self.given("process_document", doc))
        return chunks

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        chunks = result_of(self.method("process_batch"), (docs,))
        expect_chunk_dicts(chunks, self.given("process_batch", docs))
        return chunks


def keep_all(submission: Any, chunk_size: int, overlap: int) -> Pipeline:
    """A pipeline that drops nothing (min_chunk_size 0), to see every cut."""
    return Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=0)


def cuts_ahead(
    submission: Any, cases: Iterable[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Send the calls a check of each (chunk_size, overlap, text) is about to make together:
    `keep_all(submission, chunk_size, overlap)`, then its chunk_text of `text`.

    Only a matter of speed, as `send_ahead`: the check still makes each call where
    it did, in the same order, and gets the answer it would have got. Gives back
    the cases: `for chunk_size, overlap, text in cuts_ahead(submission, cases):`.
    """
    cases = list(cases)
    with submission.ahead() as later:
        for chunk_size, overlap, text in cases:
            note_cut(later, chunk_size, overlap, text)
    return cases


def note_cut(later: Any, chunk_size: int, overlap: int, text: str) -> None:
    """Note on `later` (a block of calls sent ahead) the calls of
    `keep_all(submission, chunk_size, overlap).chunk_text(text)`."""
    made = later.ChunkingPipeline(chunk_size=chunk_size, overlap=overlap, min_chunk_size=0)
    made.chunk_text(text)


def expect_chunk_dicts(value: Any, given: str | Lazy) -> None:
    if not isinstance(value, list):
        fail(given=given, expected="a list of chunk dicts", got=plain(value))
    for k, chunk in enumerate(value):
        if isinstance(chunk, list):
            fail(
                given=given,
                expected=f"one flat list of chunk dicts, but item {k} is itself a list (the "
                "chunks of every document go into the same list, one after another)",
                got=plain(value),
            )
        if type(chunk) is not dict:
            # A subclass reaches the grader only as its description: the lesson asks for
            # dict itself, as chunks are plain records handed on as data.
            fail(
                given=given,
                expected=f"chunk {k} to be a plain dict (dict itself, not a subclass such as "
                "OrderedDict: chunks are plain records)",
                got=plain(chunk),
            )
        missing = [key for key in CHUNK_KEYS if key not in chunk]
        if missing:
            fail(
                given=given,
                expected=f"chunk {k} to have the keys {', '.join(CHUNK_KEYS)} "
                f"(missing: {', '.join(missing)})",
                got=plain(chunk),
            )
        for key, kind, shown in FIELD_KINDS:
            # bool is an int in Python, but True is no position.
            if not isinstance(chunk[key], kind) or isinstance(chunk[key], bool):
                fail(
                    given=given,
                    expected=f"chunk {k}'s {key} to be {shown}",
                    got=plain(chunk[key]),
                )


# The fields whose type a chunk dict's check names, with the words it names it in.
FIELD_KINDS = (
    ("text", str, "a str"),
    ("char_start", int, "an int"),
    ("chunk_index", int, "an int"),
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


def least_chunks(length: int, chunk_size: int, overlap: int) -> int:
    """The fewest chunks that can hold a text: each next one moves at most chunk_size - overlap."""
    if length <= chunk_size:
        return 1 if length else 0
    return 1 + -(-(length - chunk_size) // (chunk_size - overlap))


def check_lengths(pipe: Pipeline, text: str, chunks: list[str], given: str | Lazy) -> None:
    """No chunk longer than chunk_size, and enough of them to hold the text."""
    check_no_chunk_too_long(pipe, chunks, given)
    check_enough_chunks(pipe, text, chunks, given)


def check_no_chunk_too_long(pipe: Pipeline, chunks: list[str], given: str | Lazy) -> None:
    for k, chunk in enumerate(chunks):
        if len(chunk) > pipe.chunk_size:
            fail(
                given=given,
                expected=f"chunk {k} to have at most {pipe.chunk_size} characters",
                got=chunk,
                before=chunks[k - 1] if k else None,
            )


def check_enough_chunks(pipe: Pipeline, text: str, chunks: list[str], given: str | Lazy) -> None:
    least = least_chunks(len(text), pipe.chunk_size, pipe.overlap)
    expect(
        len(chunks) >= least,
        given=given,
        expected=f"at least {least} chunks of at most {pipe.chunk_size} characters, each next "
        f"one starting {pipe.overlap} characters before the one before ends, to hold all "
        f"{len(text)} characters",
        got=chunks,
    )


def cut_starts(text: str, overlap: int, chunks: list[str], given: str | Lazy) -> list[int]:
    """Where each chunk was cut from, after checking the chunks are consecutive pieces.

    The first chunk starts at 0, each next one `overlap` characters before the one
    before it ended, and the last one ends where the text ends.
    """
    starts = []
    start = 0
    for k, chunk in enumerate(chunks):
        if chunk != text[start : start + len(chunk)]:
            where = (
                "the beginning of the text"
                if k == 0
                else f"the last {overlap} characters of chunk {k - 1} followed by the text after it"
            )
            # What the text holds from there, on its own length (not cut to the chunk's).
            fail(
                given=given,
                expected=f"chunk {k} to start at character {start}, with {where}: "
                f"{shorten(text[start : start + max(len(chunk), 40)], 160)}",
                got=chunk,
                before=chunks[k - 1] if k else None,
            )
        starts.append(start)
        if k + 1 < len(chunks) and len(chunk) <= overlap:
            fail(
                given=given,
                expected=f"chunk {k} to be longer than the overlap ({overlap}), so the next "
                "chunk starts after it",
                got=chunk,
                before=chunks[k - 1] if k else None,
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


def lengths_first(pipe: Pipeline, text: str, chunks: list[str], given: str | Lazy) -> None:
    """The length check other checks build on.

    Only a chunk longer than chunk_size breaks the length rule on this input, so only
    then do they say to fix it first. Too few chunks that are each short enough leave
    part of the text out (an empty list, say): that is shown as it is, since the rule
    of the check at hand may be the one broken.
    """
    building_on(LENGTH_RULE, lambda: check_no_chunk_too_long(pipe, chunks, given))
    check_enough_chunks(pipe, text, chunks, given)


def basic_cuts(
    pipe: Pipeline, text: str, chunks: list[str] | None = None, given: Lazy | None = None
) -> tuple[list[str], list[int]]:
    """chunk_text's chunks and where each starts, for checks that build on the basic rules.

    `given`, when the chunks are given, is the call as it was named before it was made.
    """
    given = given or pipe.given("chunk_text", text)
    chunks = pipe.chunk_text(text) if chunks is None else chunks
    lengths_first(pipe, text, chunks, given)
    starts = building_on(PIECES_RULE, lambda: cut_starts(text, pipe.overlap, chunks, given))
    return chunks, starts


def expect_short_texts(chunks: list[dict[str, Any]], chunk_size: int, given: str | Lazy) -> None:
    """Chunks of a document no longer than chunk_size: the checks of documents build on it."""
    texts = [chunk["text"] for chunk in chunks]
    building_on(
        LENGTH_RULE,
        lambda: expect(
            all(len(text) <= chunk_size for text in texts),
            given=given,
            expected=f"every chunk's text to have at most {chunk_size} characters",
            got=texts,
        ),
    )


def document_chunks(pipe: Pipeline, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """process_document's chunks of each document in turn (min_chunk_size 0), after checking
    their lengths and count: the checks of batches build on it."""
    found = []
    for doc in docs:
        chunks = pipe.process_document(doc)
        body = doc.get("body") or ""
        given = pipe.given("process_document", doc)
        lengths_first(pipe, body, [chunk["text"] for chunk in chunks], given)
        found += chunks
    return found


def describe_ends(text: str, start: int, chunk_size: int, ends: dict[int, str]) -> str:
    rules = {
        "sentence": "at the last usable sentence end in its window (right after the mark, "
        "or after the whitespace that follows it)",
        "word": "at the last usable whitespace in its window, so that no word is cut",
        "hard": f"after exactly chunk_size ({chunk_size}) characters, as its window has no "
        "usable sentence end or whitespace",
        "any whitespace": "at a usable whitespace, as its window has no usable sentence end "
        "(which whitespace is a rule of its own, checked apart)",
    }
    said = " or ".join(dict.fromkeys(rules[kind] for kind in ends.values()))
    # Any whitespace allows too many ends to list; the other rules' ends are listed.
    listed = sorted(end for end, kind in ends.items() if kind != "any whitespace")
    if not listed:
        return said
    tails = " or ".join(shorten(text[max(start, end - 24) : end], 60) for end in listed)
    return f"{said}; that is, to end with {tails}"


def check_endings(
    text: str,
    chunk_size: int,
    chunks: list[str],
    starts: list[int],
    given: str | Lazy,
    ends_for: Callable[[int], dict[int, str]],
) -> None:
    """Every chunk ends where the cutting rules say, given where it starts.

    `ends_for(start)` gives the ends allowed for a chunk cut from `start` whose
    window does not reach the end of the text, each with the rule that allows it.
    """

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
                    before=chunk,
                )
            continue
        ends = ends_for(start)
        if start + len(chunk) not in ends:
            fail(
                given=given,
                expected=f"{about(k, start)} to end {describe_ends(text, start, chunk_size, ends)}",
                got=chunk,
                before=chunks[k - 1] if k else None,
            )


# Where the rules let each chunk end on the public texts, for every start an allowed
# chunking reaches: fixed data, made on the grading side.
PUBLIC_CUTS_FILE = Path(__file__).with_name("public_cuts.json")


def check_public_cuts(submission: Any, name: str) -> None:
    """chunk_text on the public texts of `name`, against their fixed tables of allowed ends."""
    cases = json.loads(PUBLIC_CUTS_FILE.read_text(encoding="utf-8"))[name]
    cuts_ahead(submission, [(case["chunk_size"], case["overlap"], case["text"]) for case in cases])
    for case in cases:
        pipe = keep_all(submission, case["chunk_size"], case["overlap"])
        text = case["text"]
        chunks, starts = basic_cuts(pipe, text)
        table = {
            int(start): {int(end): kind for end, kind in ends.items()}
            for start, ends in case["ends"].items()
        }
        given = pipe.given("chunk_text", text)
        check_endings(text, pipe.chunk_size, chunks, starts, given, table.__getitem__)


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
    for text in pipe.ahead("chunk_text", ("x", "One sentence. Then another.", exactly_forty)):
        expect_chunks(pipe, text, [text])


@pytest.mark.rule(
    "Chunks are consecutive pieces of the text: the first starts at its beginning, each next "
    "one starts with the last overlap characters of the one before, and the last one ends "
    "where the text ends."
)
@pytest.mark.points(1)
def test_chunks_are_overlapping_pieces(submission):
    cases = [(50, 12, STORY), (30, 0, STORY), (25, 6, WORDS)]
    for chunk_size, overlap, text in cuts_ahead(submission, cases):
        pipe = keep_all(submission, chunk_size, overlap)
        given = pipe.given("chunk_text", text)
        chunks = pipe.chunk_text(text)
        lengths_first(pipe, text, chunks, given)
        cut_starts(text, overlap, chunks, given)


@pytest.mark.rule(
    "No chunk is longer than chunk_size characters, so a text longer than that takes "
    "several chunks."
)
@pytest.mark.points(1)
def test_no_chunk_longer_than_chunk_size(submission):
    long_words = "internationalization characterization responsibilities overwhelmingly"
    cases = [(50, 12, STORY), (25, 5, long_words), (12, 3, WORDS)]
    for chunk_size, overlap, text in cuts_ahead(submission, cases):
        pipe = keep_all(submission, chunk_size, overlap)
        check_lengths(pipe, text, pipe.chunk_text(text), pipe.given("chunk_text", text))


@pytest.mark.rule(
    "A chunk ends at the last sentence end in its window (a ., ! or ? followed by whitespace, "
    "both inside the window), right after the mark or after that whitespace."
)
@pytest.mark.points(1)
def test_ends_at_last_sentence_end(submission):
    check_public_cuts(submission, "sentence ends")


@pytest.mark.rule(
    "With no sentence end in its window, a chunk ends at the last whitespace in it (keeping that "
    "whitespace or not), so no word is cut."
)
@pytest.mark.points(1)
def test_ends_at_last_whitespace(submission):
    check_public_cuts(submission, "whitespace")


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
@pytest.mark.points(1)
def test_short_chunks_dropped(submission):
    text = (
        "Hi. Everything here is fine. Ok. The weather stays calm and dry today. No. "
        "Tomorrow brings more of the same, they say."
    )
    check_dropping_short_chunks(submission, text, 30, 4, also=12)


def check_dropping_short_chunks(
    submission: Any, text: str, chunk_size: int, overlap: int, also: int
) -> None:
    """With min_chunk_size the shortest chunk's length, one more, and `also`, exactly the
    chunks of min_chunk_size 0 that are long enough stay."""
    every, _ = basic_cuts(keep_all(submission, chunk_size, overlap), text)
    shortest = min(len(chunk) for chunk in every)
    leasts = (shortest, shortest + 1, also)
    with submission.ahead() as later:  # the calls below, sent together
        for least in leasts:
            made = later.ChunkingPipeline(
                chunk_size=chunk_size, overlap=overlap, min_chunk_size=least
            )
            made.chunk_text(text)
    for least in leasts:
        pipe = Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=least)
        expect_chunks(pipe, text, [chunk for chunk in every if len(chunk) >= least])


# --- process_document and process_batch ------------------------------------------------


@pytest.mark.rule(
    "process_document returns a list of plain dicts (dict itself, not a subclass such as "
    "OrderedDict), one per chunk, each with doc_id, chunk_index, text, char_start and metadata."
)
@pytest.mark.points(1)
def test_document_chunk_fields(submission):
    body = "abcdefghijklmnopqrstuvwxyz" * 2
    doc = {"id": "doc-1", "title": "Alphabet", "body": body, "metadata": {"source": "abc"}}
    check_document_fields(keep_all(submission, 20, 5), doc, [(0, 20), (15, 35), (30, 50), (45, 52)])


def check_document_fields(pipe: Pipeline, doc: dict[str, Any], cuts: list[tuple[int, int]]) -> None:
    """process_document gives exactly the chunk dicts of these (start, end) cuts."""
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    expected = [
        {
            "doc_id": doc["id"],
            "chunk_index": index,
            "text": doc["body"][start:end],
            "char_start": start,
            "metadata": doc.get("metadata") or {},
        }
        for index, (start, end) in enumerate(cuts)
    ]
    expect(
        len(chunks) == len(expected),
        given=given,
        expected=f"{len(expected)} chunks: {shorten(expected)}",
        got=chunks,
    )
    for k, (chunk, wanted) in enumerate(zip(chunks, expected, strict=True)):
        if {key: chunk[key] for key in CHUNK_KEYS} != wanted:
            fail(given=given, expected=f"chunk {k} to be {wanted}", got=plain(chunk))


@pytest.mark.rule("Each chunk's text is body[char_start:char_start + len(text)].")
@pytest.mark.points(1)
def test_char_start_locates_text(submission):
    doc = {"id": "story", "title": "A cat", "body": STORY}
    check_char_starts(submission, doc, [(40, 8, 0), (50, 10, 30)])


def check_char_starts(
    submission: Any, doc: dict[str, Any], settings: list[tuple[int, int, int]]
) -> None:
    """Each chunk's text is where its char_start says, for each (chunk_size, overlap, least)."""
    body = doc["body"]
    with submission.ahead() as later:  # the calls below, sent together
        for chunk_size, overlap, least in settings:
            made = later.ChunkingPipeline(
                chunk_size=chunk_size, overlap=overlap, min_chunk_size=least
            )
            made.process_document(doc)
    for chunk_size, overlap, least in settings:
        pipe = Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=least)
        given = pipe.given("process_document", doc)
        chunks = pipe.process_document(doc)
        expect(chunks != [], given=given, expected="some chunks", got=chunks)
        expect_short_texts(chunks, chunk_size, given)
        for k, chunk in enumerate(chunks):
            start, text = chunk["char_start"], chunk["text"]
            if body[start : start + len(text)] != text or start < 0:
                fail(
                    given=given,
                    expected=f"chunk {k}'s text to be body[{start}:{start + len(text)}]: "
                    f"{shorten(body[start : start + len(text)], 120)}",
                    got=text,
                )


@pytest.mark.rule("A document whose body is missing, None or empty gives an empty list.")
@pytest.mark.points(1)
def test_no_body_gives_no_chunks(submission):
    docs = [
        {"id": "a", "title": "No body"},
        {"id": "b", "title": "None", "body": None},
        {"id": "c", "title": "Empty", "body": "", "metadata": {"k": 1}},
    ]
    check_no_chunks(keep_all(submission, 40, 10), docs)


def check_no_chunks(pipe: Pipeline, docs: list[dict[str, Any]]) -> None:
    for doc in pipe.ahead("process_document", docs):
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
    check_batch(keep_all(submission, 30, 5), docs)


def check_batch(pipe: Pipeline, docs: list[dict[str, Any]]) -> None:
    """process_batch gives what process_document gives for each document, in turn.

    Each document's chunks come from a pipeline of its own: the batch is judged on
    what it puts together, not on what earlier calls left in `pipe`.
    """
    expected = [chunk for doc in docs for chunk in document_chunks(pipe.fresh(), [doc])]
    batch = pipe.process_batch(docs)
    given = pipe.given("process_batch", docs)
    expect(
        len(batch) == len(expected),
        given=given,
        expected=f"{len(expected)} chunks, those process_document gives for each document in turn",
        got=batch,
    )
    for k, (chunk, wanted) in enumerate(zip(batch, expected, strict=True)):
        if chunk != wanted:
            fail(
                given=given,
                expected=f"chunk {k} of the batch to be {shorten(wanted, 160)}",
                got=plain(chunk),
            )
