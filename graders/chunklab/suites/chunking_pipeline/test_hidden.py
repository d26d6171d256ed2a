"""Hidden checks of the chunking_pipeline lesson: every public rule again on other inputs, edge
cases, properties on random texts and a long document."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any

import pytest

from chunklab.suites.checks import (
    Lazy,
    RuleBroken,
    building_on,
    call_given,
    character_difference,
    expect,
    expect_for_all,
    expect_list_of_strings,
    expect_raises,
    fail,
    result_of,
    same_value,
    shorten,
)
from chunklab.suites.chunking_pipeline import pipeline_tries as tries
from chunklab.suites.chunking_pipeline.hidden_cutting import check_cuts
from chunklab.suites.chunking_pipeline.pipeline_tries import Tries, ends_by, several_chunks
from chunklab.suites.chunking_pipeline.test_visible import (
    CHUNK_KEYS,
    PIECES_RULE,
    STORY,
    WORDS,
    Described,
    Pipeline,
    basic_cuts,
    check_batch,
    check_char_starts,
    check_document_fields,
    check_dropping_short_chunks,
    check_lengths,
    check_no_chunks,
    cut_starts,
    cuts_ahead,
    document_chunks,
    expect_chunk_dicts,
    expect_chunks,
    expect_short_texts,
    keep_all,
    lengths_first,
    named,
    note_cut,
    plain,
)
from chunklab.suites.kept_inputs import hidden_inputs
from chunklab.suites.long_texts import (
    LONG_TEXT_SECONDS,
    Judge,
    expect_long_document,
)

pytestmark = pytest.mark.visibility("hidden")


# --- Inputs to try: a failure offers a public or made-up input that shows it ----------


def cut_ahead(later: Any, case: tries.Cut) -> None:
    """The calls a check of `case` makes: a pipeline that drops nothing, and its chunk_text."""
    text, chunk_size, overlap = case
    note_cut(later, chunk_size, overlap, text)


def cuts_tried(cases: tuple[tries.Cut, ...], judge: Any) -> Tries:
    """Cases judged by `judge(pipe, text)`, pipe dropping nothing."""
    return Tries(
        cases, lambda submission, case: judge(keep_all(submission, *case[1:]), case[0]), cut_ahead
    )


def sentence_cuts(pipe: Pipeline, text: str) -> None:
    check_cuts(pipe, text, any_whitespace=True)


def only_answer(submission: Any, case: tries.Cut) -> None:
    """The chunks of `case` are the only ones the rules allow."""
    expect_chunks(keep_all(submission, *case[1:]), case[0], list(tries.only_chunking(case) or ()))


def lengths_of(pipe: Pipeline, text: str) -> None:
    check_lengths(pipe, text, pipe.chunk_text(text), pipe.given("chunk_text", text))


def pieces_of(pipe: Pipeline, text: str) -> None:
    chunks = pipe.chunk_text(text)
    given = pipe.given("chunk_text", text)
    lengths_first(pipe, text, chunks, given)
    cut_starts(text, pipe.overlap, chunks, given)


CUT_TRIES = cuts_tried(tries.CUTS, check_cuts)
SENTENCE_TRIES = cuts_tried(tries.CUTS, sentence_cuts)
EDGE_TRIES = cuts_tried(tries.EDGE_CUTS, check_cuts)
LENGTH_TRIES = cuts_tried(tries.CUTS, lengths_of)
PIECES_TRIES = cuts_tried(tries.CUTS, pieces_of)
ONE_ANSWER_TRIES = Tries(tuple(filter(tries.one_answer, tries.CUTS)), only_answer, cut_ahead)
END_TRIES = Tries(tries.REACHING_THE_END, only_answer, cut_ahead)
FITS_TRIES = Tries(
    tries.FITS,
    lambda submission, case: expect_chunks(keep_all(submission, *case[1:]), case[0], [case[0]]),
    cut_ahead,
)
INVALID_TRIES = Tries(
    tries.INVALID_SETTINGS,
    lambda submission, case: expect_raises(submission.ChunkingPipeline, (), ValueError, **case[1]),
)
DEFAULTS_TRIES = Tries(
    tries.POSITIONAL, lambda submission, case: check_same_settings(submission, *case)
)


def hard_cut_only(case: tries.Cut) -> bool:
    return several_chunks(case) and tries.rule_kinds(case) == {"hard"}


def whitespace_only(case: tries.Cut) -> bool:
    return "word" in tries.rule_kinds(case) and "sentence" not in tries.rule_kinds(case)


def document_tried(check: Any, settings: tuple[int, int] = tries.BATCH_SETTINGS) -> Any:
    """`check(pipe, doc)` on a pipeline that drops nothing."""
    return lambda submission, doc: check(keep_all(submission, *settings), doc)


SHORT_DROP_TRIES = Tries(
    tries.SHORT_DROPS,
    lambda submission, case: check_dropping_short_chunks(
        submission, case[0], case[1], case[2], also=case[3]
    ),
)
FIELDS_TRIES = Tries(
    tries.PLAIN_BODIES,
    lambda submission, case: check_document_fields(
        keep_all(submission, *case[1:]),
        case[0],
        tries.only_cuts((case[0]["body"], *case[1:])),
    ),
)
CHAR_START_TRIES = Tries(
    tries.DOCUMENT_CUTS,
    lambda submission, case: check_char_starts(
        submission, tries.document(case[0], metadata={"k": "v"}), [case[1:]]
    ),
)
NO_BODY_TRIES = Tries(
    tries.NO_BODIES, document_tried(lambda pipe, doc: check_no_chunks(pipe, [doc]))
)
BATCH_TRIES = Tries(tries.BATCHES, document_tried(lambda pipe, docs: check_batch(pipe, list(docs))))
BLANK_TRIES = Tries(
    tuple(map(tries.document, tries.BLANK_BODIES)),
    lambda submission, doc: check_blank_body(keep_all(submission, 4, 1), doc),
)
ID_TRIES = Tries(
    tuple(tries.document("Go on. Stop! Why? Fine.", doc_id) for doc_id in tries.IDS),
    document_tried(lambda pipe, doc: check_id_kept(pipe, doc)),
)
INVISIBLE_TRIES = cuts_tried(
    tries.INVISIBLE_CUTS,
    lambda pipe, text: expect_pieces(text, pipe.chunk_text(text), pipe.given("chunk_text", text)),
)


def invalid(kind: str) -> Any:
    return lambda case: case[0] == kind


def other_punctuation(case: tries.Cut) -> bool:
    """A text with a mark that ends no sentence, or an abbreviation, which ends one."""
    text = case[0]
    return several_chunks(case) and (
        any(char in text for char in "\"'();:\u2026\u3002\uff01") or "Mr. " in text
    )


# --- Settings -----------------------------------------------------------------------------


@pytest.mark.rule(
    "Settings just inside the limits are accepted and work: chunk_size 1, overlap 0, overlap "
    "chunk_size - 1, min_chunk_size 0."
)
@pytest.mark.points(1)
def test_edge_settings_accepted(submission):
    with EDGE_TRIES.offered(submission):
        one = keep_all(submission, 1, 0)
        expect_chunks(one, "abc", ["a", "b", "c"])
        text = "abcdefghijklmnop"
        crawl = keep_all(submission, 10, 9)
        expect_chunks(crawl, text, [text[i : i + 10] for i in range(7)])


@pytest.mark.rule(
    "ChunkingPipeline() uses chunk_size 500, overlap 50 and min_chunk_size 100, and takes them "
    "in that order: ChunkingPipeline(chunk_size, overlap, min_chunk_size)."
)
@pytest.mark.points(1)
def test_defaults(submission):
    with DEFAULTS_TRIES.offered(submission):
        # Each pipeline is judged against the same submission's pipeline with the settings
        # written out, so only where the defaults and the order of the settings go counts:
        # how the chunks are cut is the cutting rules' to judge.
        cases = [
            ((12, 3, 5), "a" * 30),
            *(((), text) for text in ("a" * 1200, "b" * 99, "b" * 100)),
        ]
        with submission.ahead() as later:  # the calls of check_same_settings, sent together
            for given, text in cases:
                later.ChunkingPipeline(*given).chunk_text(text)
                later.ChunkingPipeline(**written_out(given)).chunk_text(text)
        for given, text in cases:
            check_same_settings(submission, given, text)


DEFAULT_SETTINGS = {"chunk_size": 500, "overlap": 50, "min_chunk_size": 100}


def written_out(given: tuple[int, ...]) -> dict[str, int]:
    """Every setting by name: those `given` by position in the order of the rule, the
    others at their defaults."""
    return {**DEFAULT_SETTINGS, **dict(zip(DEFAULT_SETTINGS, given, strict=False))}


def check_same_settings(submission: Any, given: tuple[int, ...], text: str) -> None:
    """ChunkingPipeline(*given) cuts `text` as the pipeline with every setting named does:
    those given by position in the order of the rule, the others at their defaults."""
    written = written_out(given)
    shown = ", ".join(map(str, given))
    instance = result_of(submission.ChunkingPipeline, given)
    chunk_text = named(instance.chunk_text, f"ChunkingPipeline({shown}).chunk_text")
    chunks = expect_list_of_strings(
        result_of(chunk_text, (text,)), given=call_given(chunk_text, (text,))
    )
    wanted = Pipeline(submission, **written).chunk_text(text)
    if chunks != wanted:
        label = ", ".join(f"{name}={value}" for name, value in written.items())
        lengths = [len(chunk) for chunk in wanted]
        fail(
            given=call_given(chunk_text, (text,)),
            expected=f"the chunks of ChunkingPipeline({label}), of lengths {lengths}",
            got=Described(f"chunks of lengths {[len(chunk) for chunk in chunks]}"),
        )


# --- Cutting ------------------------------------------------------------------------------


@pytest.mark.rule(
    "!, ? and . all end sentences, whatever whitespace follows them: a space, a tab, a line "
    "break or a non-breaking space."
)
@pytest.mark.points(1)
def test_every_mark_and_whitespace_ends_sentences(submission):
    with SENTENCE_TRIES.offered(submission, ends_by("sentence")):
        text = (
            "Wait! Are you really sure about that?\tYes, I am completely sure!\nThen go right "
            "ahead and do it?\u00a0Fine, I will go now and see them all! Really?\r\nYes, really!"
        )
        for chunk_size, overlap, _ in cuts_ahead(submission, [(30, 6, text), (45, 10, text)]):
            check_cuts(keep_all(submission, chunk_size, overlap), text, any_whitespace=True)


@pytest.mark.rule(
    "A ., ! or ? ends a sentence only when whitespace follows it inside the window (not in "
    "3.14, not as the window's last character)."
)
@pytest.mark.points(1)
def test_mark_needs_whitespace_in_window(submission):
    with SENTENCE_TRIES.offered(submission, several_chunks):
        numbers = "Pi is about 3.14159 and e is about 2.71828 while tau is 6.28318 or so"
        edge = "aaa bbb ccc dd. eee fff ggg hhh iii"
        for chunk_size, overlap, text in cuts_ahead(submission, [(24, 4, numbers), (15, 3, edge)]):
            check_cuts(keep_all(submission, chunk_size, overlap), text, any_whitespace=True)


@pytest.mark.rule(
    "Tabs, line breaks and non-breaking spaces are whitespace too (str.isspace) when a chunk "
    "ends between words."
)
@pytest.mark.points(1)
def test_any_whitespace_separates_words(submission):
    with CUT_TRIES.offered(submission, ends_by("word")):
        common = "alpha\tbeta\ngamma\u00a0delta\u2003epsilon\tzeta\neta\u00a0theta\u2003iota\tkappa"
        # The rarer characters str.isspace accepts: separators of files, groups, records and
        # units, the next-line character, the line and paragraph separators.
        rare = "one\x1ctwo\x1dthree\x1efour\x1ffive\x85six\u2028seven\u2029eight\x0bnine"
        cases = [(14, 3, common), (20, 0, common), (9, 2, rare), (12, 0, rare)]
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            check_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "A sentence end or whitespace that would not move the next chunk forward does not count, "
    "so chunking always finishes."
)
@pytest.mark.points(2)
def test_never_stalls(submission):
    with SENTENCE_TRIES.offered(submission, lambda case: several_chunks(case) and case[2] > 0):
        cases = (
            # The first chunk ends at "one. "; in the next window that sentence end lies
            # inside the overlap, and ending there again would start the same chunk again.
            (20, 8, "Short one. a long run of words without any marks for quite a while now"),
            # The only whitespace of the first window lies inside the overlap.
            (12, 4, "ab cdefghijklmnopqrstuvwxyz0123456789"),
            (6, 4, "A. B. C. D. E. F. G. H. I. J."),
            (10, 9, STORY),
        )
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            check_cuts(keep_all(submission, chunk_size, overlap), text, any_whitespace=True)


@pytest.mark.rule(
    "A chunk whose window reaches the end of the text is the last chunk, whole, even with a "
    "sentence end inside it."
)
@pytest.mark.points(1)
def test_window_reaching_end_is_last(submission):
    with END_TRIES.offered(submission):
        text = "x" * 20 + "Yes. No. Maybe."
        pipe = keep_all(submission, 20, 5)
        expect_chunks(pipe, text, [text[:20], text[15:]])


# --- Documents ----------------------------------------------------------------------------


@pytest.mark.rule(
    "char_start is where the chunk was cut from (overlap characters before the previous chunk "
    "ended), even when the same text appears earlier in the body."
)
@pytest.mark.points(1)
def test_char_start_on_repeated_text(submission):
    with CUT_FROM_TRIES.offered(submission):
        check_cut_from(
            keep_all(submission, 20, 5), {"id": "echo", "title": "Echo", "body": "Echo. " * 12}
        )
        # With short chunks dropped, a kept chunk may start far after the kept one before it,
        # past other places where its text appears.
        check_dropping(submission, "Echo. Hi. " * 12, (20, 2), 17)


def check_cut_from(pipe: Pipeline, doc: dict[str, Any]) -> None:
    """Each chunk's char_start is where it was cut from."""
    body = doc["body"]
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    expect_short_texts(chunks, pipe.chunk_size, given)
    texts = [chunk["text"] for chunk in chunks]
    starts = building_on(PIECES_RULE, lambda: cut_starts(body, pipe.overlap, texts, given))
    for k, (chunk, start) in enumerate(zip(chunks, starts, strict=True)):
        if chunk["char_start"] != start:
            fail(
                given=given,
                expected=f"chunk {k}'s char_start to be {start}, where it was cut from",
                got=chunk["char_start"],
            )


def cut_from_or_dropping(submission: Any, case: tuple[str, int, int, int]) -> None:
    body, chunk_size, overlap, least = case
    if least:
        check_dropping(submission, body, (chunk_size, overlap), least)
    else:
        check_cut_from(keep_all(submission, chunk_size, overlap), tries.document(body))


CUT_FROM_TRIES = Tries(tries.DOCUMENT_CUTS, cut_from_or_dropping)


@pytest.mark.rule(
    "chunk_index counts 0, 1, 2, ... over the chunks returned, after short ones are dropped."
)
@pytest.mark.points(1)
def test_chunk_index_after_dropping(submission):
    with INDEX_TRIES.offered(submission, lambda case: case[3] > 0):
        doc = {"id": "story", "title": "A cat", "body": STORY}
        pipe = Pipeline(submission, chunk_size=30, overlap=4, min_chunk_size=14)
        given = check_indexes(pipe, doc)
        # Every call counts its own chunks: a second document on the same pipeline starts at 0.
        other = {"id": "again", "title": "Again", "body": STORY[::-1]}
        again = [chunk["chunk_index"] for chunk in pipe.process_document(other)]
        expect(
            again == list(range(len(again))),
            given=Lazy(lambda: f"{pipe.given('process_document', other)}, after {given}"),
            expected=f"chunk_index values {list(range(len(again)))}",
            got=again,
        )


def check_indexes(pipe: Pipeline, doc: dict[str, Any]) -> Lazy:
    """The document's chunks are several, counted 0, 1, 2, ...; gives the call's name."""
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    expect_short_texts(chunks, pipe.chunk_size, given)
    expect(len(chunks) > 1, given=given, expected="several chunks", got=chunks)
    indexes = [chunk["chunk_index"] for chunk in chunks]
    expect(
        indexes == list(range(len(chunks))),
        given=given,
        expected=f"chunk_index values {list(range(len(chunks)))}",
        got=indexes,
    )
    return given


INDEX_TRIES = Tries(
    tries.DOCUMENT_CUTS,
    lambda submission, case: check_indexes(
        Pipeline(submission, chunk_size=case[1], overlap=case[2], min_chunk_size=case[3]),
        tries.document(case[0]),
    ),
)


@pytest.mark.rule(
    "Each chunk's metadata equals the document's metadata, and is {} when the document has "
    "none or it is None."
)
@pytest.mark.points(1)
def test_metadata_carried(submission):
    with METADATA_TRIES.offered(submission):
        pipe = keep_all(submission, 40, 5)
        metadata = {"lang": "en", "tags": ["cat", "night"], "year": 2024}
        cases = [
            ({"id": "m", "title": "T", "body": STORY, "metadata": metadata}, metadata),
            ({"id": "n", "title": "T", "body": STORY}, {}),
            ({"id": "o", "title": "T", "body": STORY, "metadata": None}, {}),
        ]
        pipe.ahead("process_document", [doc for doc, _ in cases])
        for doc, wanted in cases:
            check_metadata(pipe, doc, wanted)


def check_metadata(pipe: Pipeline, doc: dict[str, Any], wanted: Any) -> None:
    chunks = pipe.process_document(doc)
    expect(chunks != [], given=pipe.given("process_document", doc), expected="chunks", got=[])
    for k, chunk in enumerate(chunks):
        if not same_value(chunk["metadata"], wanted):
            fail(
                given=pipe.given("process_document", doc),
                expected=f"chunk {k}'s metadata to be {wanted}",
                got=plain(chunk["metadata"]),
            )


METADATA_TRIES = Tries(
    tries.METADATA,
    lambda submission, case: check_metadata(keep_all(submission, *tries.BATCH_SETTINGS), *case),
)


@pytest.mark.rule("process_batch starts chunk_index again at 0 for each document.")
@pytest.mark.points(1)
def test_batch_counts_index_per_document(submission):
    with BATCH_INDEX_TRIES.offered(submission):
        docs = [
            {"id": "story", "title": "A cat", "body": STORY},
            {"id": "words", "title": "A fox", "body": WORDS},
        ]
        check_batch_indexes(keep_all(submission, 30, 5), docs)


def check_batch_indexes(pipe: Pipeline, docs: list[dict[str, Any]]) -> None:
    """Documents of several chunks each, with ids of their own: each counts from 0."""
    document_chunks(pipe, docs)
    batch = pipe.process_batch(docs)
    for doc in docs:
        indexes = [chunk["chunk_index"] for chunk in batch if chunk["doc_id"] == doc["id"]]
        expect(
            len(indexes) > 1 and indexes == list(range(len(indexes))),
            given=pipe.given("process_batch", docs),
            expected=f"the chunks of {doc['id']!r} to have chunk_index 0, 1, 2, ...",
            got=indexes,
        )


BATCH_INDEX_TRIES = Tries(
    tries.INDEX_BATCHES,
    lambda submission, docs: check_batch_indexes(
        keep_all(submission, *tries.BATCH_SETTINGS), list(docs)
    ),
)


@pytest.mark.rule(
    "process_document and process_batch never change what they are given: the document, its "
    "metadata and the list of documents are, after the call, as they were sent."
)
@pytest.mark.points(2)
def test_inputs_left_as_they_were(submission):
    with UNCHANGED_TRIES.offered(submission):
        pipe = keep_all(submission, 30, 5)
        metadata = {"lang": "en", "tags": ["cat", "night"]}
        doc = {"id": "kept", "title": "A cat", "body": STORY, "metadata": metadata}
        check_unchanged(pipe, "process_document", doc, "document")
        check_unchanged(
            pipe, "process_document", {"id": "bare", "title": "Bare", "body": WORDS}, "document"
        )
        docs = [
            {"id": "one", "title": "A cat", "body": STORY, "metadata": {"lang": "en"}},
            {"id": "two", "title": "A fox", "body": WORDS, "metadata": None},
            {"id": "three", "title": "Nothing"},
        ]
        check_unchanged(pipe, "process_batch", docs, "list of documents")


def check_unchanged(pipe: Pipeline, name: str, argument: Any, what: str) -> None:
    """The call leaves its argument as it was sent, as the worker's own copy shows."""
    method = named(getattr(pipe.instance, name).watching_inputs(), f"{pipe.label}.{name}")
    returned = result_of(method, (argument,))
    if returned.changed:
        args = returned.left[0] if isinstance(returned.left, list) and returned.left else []
        left = args[0] if isinstance(args, list) and args else returned.left
        fail(
            given=pipe.given(name, argument),
            expected=f"the {what} given to be, after the call, as it was sent",
            got=Described(f"{what_changed(argument, left)}; after the call it held {plain(left)}"),
        )


def left_unchanged(submission: Any, case: Any) -> None:
    pipe = keep_all(submission, *tries.BATCH_SETTINGS)
    if isinstance(case, dict):
        check_unchanged(pipe, "process_document", case, "document")
    else:
        check_unchanged(pipe, "process_batch", list(case), "list of documents")


UNCHANGED_TRIES = Tries(tuple(doc for doc, _ in tries.METADATA) + tries.BATCHES, left_unchanged)


def what_changed(sent: Any, left: Any, where: str = "it") -> str:
    """The first difference between a value sent and the value a call left, in words."""
    if isinstance(sent, dict) and isinstance(left, dict):
        for key in sent:
            if key not in left:
                return f"{where} lost the key {key!r}"
            if not same_value(left[key], sent[key]):
                return what_changed(sent[key], left[key], f"{where}[{key!r}]")
        added = [key for key in left if key not in sent]
        return f"{where} gained the key {added[0]!r}" if added else f"{where} changed"
    if isinstance(sent, list) and isinstance(left, list):
        if len(left) != len(sent):
            return f"{where} held {len(left)} items instead of {len(sent)}"
        for k, (a, b) in enumerate(zip(sent, left, strict=True)):
            if not same_value(b, a):
                return what_changed(a, b, f"{where}[{k}]")
    return f"{where} became {shorten(left, 80)} instead of {shorten(sent, 80)}"


# --- Pipelines and calls apart ----------------------------------------------------------

# Two texts of the same length that begin alike for 80 characters and then differ.
TWINS = (
    "Twins begin alike. They share their first lines, word for word and mark for mark! "
    "Then one goes on about the sea. The waves come in. It ends here.",
    "Twins begin alike. They share their first lines, word for word and mark for mark! "
    "But the other speaks of hills? Green ones, many. It stops there.",
)


def follows_cutting_rules(pipe: Pipeline, text: str, chunks: list[str]) -> bool:
    try:
        check_cuts(pipe, text, chunks)
    except RuleBroken as broken:
        if broken.raised:
            raise
        return False
    return True


class Answered:
    """The answers of earlier calls that followed the cutting rules, each named by its call."""

    def __init__(self) -> None:
        self.right: list[tuple[str, list[str]]] = []

    def note(self, call: str, chunks: list[str], right: bool) -> None:
        if right:
            self.right.append((call, chunks))

    def check(self, pipe: Pipeline, text: str, chunks: list[str]) -> bool:
        """`chunks` are not an earlier call's right answer where that answer is wrong.

        Only an answer carried over from another call (the same chunks, or chunks cut
        at the same places) breaks this rule: a chunk cut in the wrong place, as on
        every call, is the cutting rules' own to judge. Whether `chunks` follow them.
        """
        right = follows_cutting_rules(pipe, text, chunks)
        lengths = [len(chunk) for chunk in chunks]
        for call, answer in self.right:
            if not right and (answer == chunks or [len(c) for c in answer] == lengths):
                how = "exactly" if answer == chunks else "cut at the same places as"
                fail(
                    given=pipe.given("chunk_text", text),
                    expected="chunks cut from this text with this pipeline's own settings; "
                    f"these are {how} the chunks of an earlier call, {call}",
                    got=chunks,
                )
        return right


@pytest.mark.rule(
    "Each pipeline keeps its own settings: pipelines made before or after it, with other "
    "settings, never change what it returns."
)
@pytest.mark.points(2)
def test_each_pipeline_keeps_its_own_settings(submission):
    first = keep_all(submission, 40, 5)
    every = first.chunk_text(SENTENCES)
    answered = Answered()
    answered.note(
        f"{first.label}.chunk_text(the same text)",
        every,
        follows_cutting_rules(first, SENTENCES, every),
    )
    # Pipelines that differ from the first in one setting each, made after it; after each,
    # the first one again.
    for settings in ({"min_chunk_size": 30}, {"overlap": 12}, {"chunk_size": 25}):
        pipe = Pipeline(submission, **{**first.settings, **settings})
        chunks = pipe.chunk_text(SENTENCES)
        if pipe.min_chunk_size:
            kept = [chunk for chunk in every if len(chunk) >= pipe.min_chunk_size]
            expect(
                chunks == kept,
                given=pipe.given("chunk_text", SENTENCES),
                expected=f"the chunks of {first.label} that are at least "
                f"{pipe.min_chunk_size} long: {shorten(kept)}"
                + (f"; these are exactly the chunks of {first.label}" if chunks == every else ""),
                got=chunks,
            )
            right = True
        else:
            right = answered.check(pipe, SENTENCES, chunks)
        answered.note(f"{pipe.label}.chunk_text(the same text)", chunks, right)
        answered.check(first, SENTENCES, first.chunk_text(SENTENCES))


@pytest.mark.rule(
    "Each call answers for the text it is given: a text of the same length and beginning as "
    "one given before is chunked on its own."
)
@pytest.mark.points(1)
def test_each_text_is_chunked_on_its_own(submission):
    pipe = keep_all(submission, 30, 4)
    answered = Answered()
    for text in (*TWINS, TWINS[0]):
        chunks = pipe.chunk_text(text)
        right = answered.check(pipe, text, chunks)
        answered.note(f"{pipe.label}.chunk_text({shorten(text, 60)})", chunks, right)


# Text that cleaning up would change: a byte order mark, zero-width characters, accents
# written as their own combining character (U+0301 after e), the same accent in one character.
INVISIBLE = (
    "\ufeffFirst line here. Then a zero\u200bwidth space! And a word\ufeffjoined? "
    "Cafe\u0301 au lait, caf\u00e9 noir. Cre\u0300me bru\u0302le\u0301e for two. End."
)


@pytest.mark.rule(
    "Nothing in the text is removed or changed before cutting: a byte order mark at its start, "
    "zero-width characters (U+200B, U+FEFF) and accents written as a character of their own "
    "stay in the chunks exactly as they are."
)
@pytest.mark.points(1)
def test_invisible_characters_stay(submission):
    with INVISIBLE_TRIES.offered(submission):
        # The last pipeline has settings of its own: the document's chunks are judged apart
        # from chunk_text's.
        doc = {"id": "cafe", "title": "Caf\u00e9", "body": INVISIBLE}
        cases = [(20, 4, INVISIBLE), (33, 0, INVISIBLE), (45, 9, INVISIBLE)]
        with submission.ahead() as later:  # the calls below, sent together
            for chunk_size, overlap, text in cases:
                note_cut(later, chunk_size, overlap, text)
            later.ChunkingPipeline(chunk_size=37, overlap=6, min_chunk_size=0).process_document(doc)
        for chunk_size, overlap, _ in cases:
            pipe = keep_all(submission, chunk_size, overlap)
            chunks = pipe.chunk_text(INVISIBLE)
            expect_pieces(INVISIBLE, chunks, pipe.given("chunk_text", INVISIBLE))
        pipe = keep_all(submission, 37, 6)
        chunks = pipe.process_document(doc)
        given = pipe.given("process_document", doc)
        expect_pieces(INVISIBLE, [chunk["text"] for chunk in chunks], given)


def expect_pieces(text: str, chunks: list[str], given: str | Lazy) -> None:
    """The first chunk begins the text, and every chunk is a piece of it, character for
    character (where each one starts is the cutting rules' to judge)."""
    if chunks and not text.startswith(chunks[0]):
        piece = text[: len(chunks[0])]
        fail(
            given=given,
            expected=f"chunk 0 to begin the text with its own characters: "
            f"{shorten(piece)}{character_difference(chunks[0], piece)}",
            got=chunks[0],
        )
    for k, chunk in enumerate(chunks):
        if chunk not in text:
            # The text where the chunk's longest beginning found in it goes on.
            same = next(n for n in range(len(chunk), -1, -1) if chunk[:n] in text)
            at = text.find(chunk[:same])
            piece = text[at : at + len(chunk)]
            fail(
                given=given,
                expected=f"chunk {k} to be a piece of the text, character for character; "
                f"the text has {shorten(piece)} where it has {shorten(chunk)}"
                f"{character_difference(chunk, piece)}",
                got=chunk,
            )


# --- Properties on random texts -----------------------------------------------------------

# Random inputs, drawn once and kept with the kit (hidden_inputs.json).
RANDOM_TEXTS = hidden_inputs(__file__, "texts_and_settings")
RANDOM_DROPS = hidden_inputs(__file__, "texts_settings_and_least")


@pytest.mark.rule(
    "On random texts (unicode, tabs, line breaks, long words) and settings, every chunk follows "
    "all of the cutting rules."
)
@pytest.mark.points(2)
def test_random_texts_follow_cutting_rules(submission):
    with CUT_TRIES.offered(submission, several_chunks):
        with submission.ahead() as later:
            for text, (chunk_size, overlap) in RANDOM_TEXTS:
                later.ChunkingPipeline(
                    chunk_size=chunk_size, overlap=overlap, min_chunk_size=0
                ).chunk_text(text)
        expect_for_all(
            RANDOM_TEXTS,
            lambda case: check_cuts(keep_all(submission, *case[1]), case[0]),
            size=lambda case: len(case[0]),
        )


@pytest.mark.rule(
    "Dropping short chunks happens after cutting: with min_chunk_size m you get exactly the "
    "min_chunk_size 0 chunks that are at least m long, with the same char_start."
)
@pytest.mark.points(2)
def test_dropping_keeps_positions(submission):
    with CUT_FROM_TRIES.offered(submission, lambda case: case[3] > 0):
        # A fixed case with a short chunk in the middle, then the random ones.
        fixed = ("Hi. Everything is fine here. Ok. The rest follows on.", (20, 3), 5)
        with submission.ahead() as later:
            for body, (chunk_size, overlap), least in [fixed, *RANDOM_DROPS]:
                doc = random_document(body)
                for least_kept in (0, least):
                    later.ChunkingPipeline(
                        chunk_size=chunk_size, overlap=overlap, min_chunk_size=least_kept
                    ).process_document(doc)
        expect_for_all(
            [fixed, *RANDOM_DROPS],
            lambda case: check_dropping(submission, *case),
            size=lambda case: len(case[0]),
        )


def check_dropping(submission: Any, body: str, sizes: tuple[int, int], least: int) -> None:
    chunk_size, overlap = sizes
    doc = random_document(body)
    cutter = keep_all(submission, chunk_size, overlap)
    every = cutter.process_document(doc)
    given = cutter.given("process_document", doc)
    texts = [chunk["text"] for chunk in every]
    lengths_first(cutter, body, texts, given)
    building_on(PIECES_RULE, lambda: cut_starts(body, overlap, texts, given))
    pipe = Pipeline(submission, chunk_size=chunk_size, overlap=overlap, min_chunk_size=least)
    kept = pipe.process_document(doc)
    wanted = [(c["text"], c["char_start"]) for c in every if len(c["text"]) >= least]
    got = [(c["text"], c["char_start"]) for c in kept]
    expect(
        got == wanted,
        given=pipe.given("process_document", doc),
        expected=f"the chunks of min_chunk_size=0 that are at least {least} long, as "
        f"(text, char_start): {shorten(wanted)}",
        got=got,
    )


def random_document(body: str) -> dict[str, str]:
    return {"id": "random", "title": "Random", "body": body}


# --- The public rules, on other inputs ---------------------------------------------------

MIXED = (
    "Mixed text: short. Then a longer sentence follows here!\tTabs too?\nYes. "
    "A-word-without-any-breaks-that-goes-on-and-on here. End."
)
# Sentence marks followed by runs of whitespace, some longer than what is left of a window.
RUNS = "Yes.   \t\n  No way.    Maybe so! \n\n  \t Fine.  It ends.\t\t\t\t\t\t Here."


@pytest.mark.rule("A chunk_size of 0 or less raises ValueError.")
@pytest.mark.points(1)
def test_chunk_size_must_be_positive_other_settings(submission):
    with INVALID_TRIES.offered(submission, invalid("size")):
        for settings in ({"chunk_size": -1, "overlap": 0}, {"chunk_size": 0, "min_chunk_size": 0}):
            expect_raises(submission.ChunkingPipeline, (), ValueError, **settings)


@pytest.mark.rule("A negative overlap or a negative min_chunk_size raises ValueError.")
@pytest.mark.points(1)
def test_negative_settings_raise_other_settings(submission):
    with INVALID_TRIES.offered(submission, invalid("negative")):
        for settings in (
            {"overlap": -1},
            {"chunk_size": 10, "overlap": -5},
            {"min_chunk_size": -100},
        ):
            expect_raises(submission.ChunkingPipeline, (), ValueError, **settings)


@pytest.mark.rule("An overlap equal to or larger than chunk_size raises ValueError.")
@pytest.mark.points(1)
def test_overlap_must_be_smaller_other_settings(submission):
    with INVALID_TRIES.offered(submission, invalid("too large")):
        # chunk_size=50 alone keeps the default overlap of 50.
        for settings in (
            {"chunk_size": 1, "overlap": 1},
            {"chunk_size": 7, "overlap": 100},
            {"chunk_size": 50},
        ):
            expect_raises(submission.ChunkingPipeline, (), ValueError, **settings)


@pytest.mark.rule(
    "A text that fits in one window (at most chunk_size characters) is one chunk, whole."
)
@pytest.mark.points(1)
def test_text_that_fits_other_texts(submission):
    with FITS_TRIES.offered(submission):
        cases = [(12, 3, "Hello world."), (3, 0, " \t "), (15, 14, "Wait. Go! Ok?")]
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            expect_chunks(keep_all(submission, chunk_size, overlap), text, [text])


@pytest.mark.rule(
    "Chunks are consecutive pieces of the text: the first starts at its beginning, each next "
    "one starts with the last overlap characters of the one before, and the last one ends "
    "where the text ends."
)
@pytest.mark.points(1)
def test_chunks_are_overlapping_pieces_other_texts(submission):
    with PIECES_TRIES.offered(submission, several_chunks):
        # RUNS: runs of whitespace after sentence marks; wherever a chunk ends in such a run,
        # the next one starts overlap characters before that end.
        cases = [(45, 10, MIXED), (20, 19, MIXED), (8, 2, MIXED), (14, 3, RUNS), (11, 2, RUNS)]
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            basic_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "No chunk is longer than chunk_size characters, so a text longer than that takes "
    "several chunks."
)
@pytest.mark.points(1)
def test_no_chunk_longer_other_texts(submission):
    with LENGTH_TRIES.offered(submission, several_chunks):
        # RUNS: a chunk that ends in a run of whitespace after a mark stops where its window does.
        cases = [(30, 7, MIXED), (9, 8, "x" * 100), (2, 1, "a b. c"), (14, 3, RUNS), (11, 2, RUNS)]
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            pipe = keep_all(submission, chunk_size, overlap)
            check_lengths(pipe, text, pipe.chunk_text(text), pipe.given("chunk_text", text))


SENTENCES = (
    "Short. A bit longer than that! Is this the third one? It is. Here comes a long one that "
    "runs for a while before it stops. Ok! Two more? Last."
)


@pytest.mark.rule(
    "A chunk ends at the last sentence end in its window (a ., ! or ? followed by whitespace, "
    "both inside the window), right after the mark or after that whitespace."
)
@pytest.mark.points(2)
def test_ends_at_last_sentence_end_other_texts(submission):
    with SENTENCE_TRIES.offered(submission, ends_by("sentence")):
        settings = ((45, 9), (70, 20), (28, 0), (33, 3))
        for chunk_size, overlap, _ in cuts_ahead(submission, [(*s, SENTENCES) for s in settings]):
            check_cuts(keep_all(submission, chunk_size, overlap), SENTENCES, any_whitespace=True)


@pytest.mark.rule(
    "With no sentence end in its window, a chunk ends at the last whitespace in it (keeping that "
    "whitespace or not), so no word is cut."
)
@pytest.mark.points(2)
def test_ends_at_last_whitespace_other_texts(submission):
    with CUT_TRIES.offered(submission, whitespace_only):
        text = "pack my box with five dozen liquor jugs\tand then\nsome more  words   after that"
        settings = ((18, 4), (11, 0), (25, 12))
        for chunk_size, overlap, _ in cuts_ahead(submission, [(*s, text) for s in settings]):
            check_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "With no whitespace in its window, a chunk is cut after exactly chunk_size characters."
)
@pytest.mark.points(1)
def test_hard_cut_other_texts(submission):
    with ONE_ANSWER_TRIES.offered(submission, hard_cut_only):
        text = "0123456789" * 5
        cuts = [(0, 12), (9, 21), (18, 30), (27, 39), (36, 48), (45, 50)]
        expect_chunks(keep_all(submission, 12, 3), text, [text[a:b] for a, b in cuts])


@pytest.mark.rule(
    "Chunks shorter than min_chunk_size are dropped (not merged) after cutting; a chunk exactly "
    "min_chunk_size long is kept."
)
@pytest.mark.points(1)
def test_short_chunks_dropped_other_texts(submission):
    with SHORT_DROP_TRIES.offered(submission):
        check_dropping_short_chunks(submission, SENTENCES, 25, 5, also=9)


@pytest.mark.rule(
    "process_document returns a list of plain dicts (dict itself, not a subclass such as "
    "OrderedDict), one per chunk, each with doc_id, chunk_index, text, char_start and metadata."
)
@pytest.mark.points(1)
def test_document_chunk_fields_other_document(submission):
    with FIELDS_TRIES.offered(submission):
        body = "0123456789" * 5
        doc = {"id": "d-2", "title": "Digits", "body": body, "metadata": {"a": [1, 2]}}
        cuts = [(0, 12), (9, 21), (18, 30), (27, 39), (36, 48), (45, 50)]
        check_document_fields(keep_all(submission, 12, 3), doc, cuts)


@pytest.mark.rule("Each chunk's text is body[char_start:char_start + len(text)].")
@pytest.mark.points(1)
def test_char_start_locates_text_other_document(submission):
    with CHAR_START_TRIES.offered(submission):
        doc = {"id": "mixed", "title": "Mixed", "body": MIXED, "metadata": {"k": "v"}}
        check_char_starts(submission, doc, [(30, 6, 0), (25, 5, 12)])


@pytest.mark.rule("A document whose body is missing, None or empty gives an empty list.")
@pytest.mark.points(1)
def test_no_body_other_documents(submission):
    with NO_BODY_TRIES.offered(submission):
        docs = [
            {"id": "f", "title": "Only a title"},
            {"id": 9, "title": "None", "body": None, "metadata": {"a": 1}},
            {"id": "e", "title": "", "body": "", "metadata": None},
        ]
        check_no_chunks(Pipeline(submission, chunk_size=20, overlap=2, min_chunk_size=0), docs)


@pytest.mark.rule(
    "process_batch returns one flat list: the documents in input order, each document's chunks "
    "in order."
)
@pytest.mark.points(1)
def test_batch_is_flat_and_in_order_other_documents(submission):
    with BATCH_TRIES.offered(submission):
        docs = [
            {"id": "one", "title": "1", "body": MIXED},
            {"id": "two", "title": "2"},
            {"id": "three", "title": "3", "body": SENTENCES, "metadata": None},
            # Ids need not be unique: a document is never left out of the batch.
            {"id": "one", "title": "1 again", "body": SENTENCES},
        ]
        check_batch(keep_all(submission, 35, 5), docs)


@pytest.mark.rule(
    "Only a ., ! or ? directly followed by whitespace ends a sentence: a mark followed by a quote "
    'or a bracket does not, "Mr. " does (the rules know no abbreviations), and ; or : never do, '
    "nor do other marks such as \u2026 or the full-width \u3002 \uff01 \uff1f."
)
@pytest.mark.points(2)
def test_sentence_ends_next_to_other_punctuation(submission):
    with SENTENCE_TRIES.offered(submission, other_punctuation):
        text = (
            'He left. She said "stop." Then she waited (for a while.) and Mr. Smith came in; '
            "he sat down: quiet. Nobody spoke?' Later!) they went home; the end"
        )
        # Marks of other scripts and the ellipsis character look like sentence ends but
        # are not among the three: each comes after a real sentence end in its window.
        others = (
            "We stop here. Then wait\u2026 and go on\u3002 more. Still more to come\uff01 and "
            "more words. Are they\uff1f yes! And then the rest\u203c goes on. To the end\u2026 ok"
        )
        cases = [
            *((*settings, text) for settings in ((30, 5), (40, 0), (25, 3), (55, 10))),
            *((*settings, others) for settings in ((30, 5), (40, 0), (24, 2))),
        ]
        for chunk_size, overlap, cut in cuts_ahead(submission, cases):
            check_cuts(keep_all(submission, chunk_size, overlap), cut, any_whitespace=True)


@pytest.mark.rule(
    "process_document chunks a body made only of spaces, tabs or line breaks like any other "
    "text: such a body is not empty."
)
@pytest.mark.points(1)
def test_whitespace_only_body(submission):
    with BLANK_TRIES.offered(submission):
        pipe = keep_all(submission, 10, 2)
        check_blank_body(pipe, {"id": "w", "title": "Blank", "body": " \t\n  "})
        check_cuts(pipe, " " * 12 + "\n" * 9 + "\t" * 8, any_whitespace=True)
        # A blank body longer than a window gives several chunks, as any other body does.
        check_blank_body(pipe, {"id": "w2", "title": "Blank", "body": " \t\n" * 8})


def check_blank_body(pipe: Pipeline, doc: dict[str, Any]) -> None:
    """A blank body is one whole chunk when it fits in a window, else several."""
    body = doc["body"]
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    if len(body) <= pipe.chunk_size:
        wanted = [
            {"doc_id": doc["id"], "chunk_index": 0, "text": body, "char_start": 0, "metadata": {}}
        ]
        if [{key: chunk[key] for key in CHUNK_KEYS} for chunk in chunks] != wanted:
            fail(given=given, expected=shorten(wanted), got=plain(chunks))
        return
    if len(chunks) < 2 or chunks[0]["char_start"] != 0:
        fail(
            given=given,
            expected=f"several chunks, the first starting at char_start 0 (the body has "
            f"{len(body)} characters and chunk_size is {pipe.chunk_size})",
            got=plain(chunks),
        )


@pytest.mark.rule(
    "doc_id is the document's id exactly as given, whatever its type: an int stays an int."
)
@pytest.mark.points(1)
def test_ids_that_are_not_strings(submission):
    with ID_TRIES.offered(submission):
        pipe = keep_all(submission, 40, 5)
        for doc_id in (7, 0):
            check_id_kept(pipe, {"id": doc_id, "title": "Numbered", "body": STORY})


def check_id_kept(pipe: Pipeline, doc: dict[str, Any]) -> None:
    doc_id = doc["id"]
    chunks = pipe.process_document(doc)
    expect(chunks != [], given=pipe.given("process_document", doc), expected="chunks", got=[])
    for k, chunk in enumerate(chunks):
        if not same_value(chunk["doc_id"], doc_id):
            fail(
                given=pipe.given("process_document", doc),
                expected=f"chunk {k}'s doc_id to be {doc_id!r}, the {type(doc_id).__name__} "
                "the document has",
                got=chunk["doc_id"],
            )


@pytest.mark.rule(
    "Every character of a window counts when looking for where its chunk ends, the first and "
    "the last included."
)
@pytest.mark.points(2)
def test_window_edges_count(submission):
    with CUT_TRIES.offered(submission, several_chunks):
        cases = (
            # A sentence end whose whitespace is the window's last character.
            (11, 0, "ab. defgh. jklmnopqrstu vw xyz"),
            # Whitespace as the window's last character, another one earlier.
            (9, 0, "ab cdefg hijk lmnopq rstuvw"),
            # The only whitespace of the second window is its first character.
            (10, 0, "abcdefghij klmnopqrstuvwxyz"),
            # A sentence mark as the second window's first character.
            (10, 0, "abcdefghij. klm nopqrstuvw"),
            (10, 1, "abcdefghi. klm nopqrstuvw xyz"),
        )
        for chunk_size, overlap, text in cuts_ahead(submission, cases):
            check_cuts(keep_all(submission, chunk_size, overlap), text)


# chunk_size and overlap of the long document: windows small enough that work growing
# with the square of the chunks (a list rebuilt at every step) shows.
LONG_SETTINGS = (20, 2)


@pytest.mark.call_seconds(LONG_TEXT_SECONDS)
# Timed again, a long call may be stopped and the worker started anew, by its timings.
@pytest.mark.runs_last
@pytest.mark.rule(
    "Documents in RAG are long: a text of 200,000 characters (about 80 pages) is chunked "
    "correctly with no recursion limit reached, and the work grows in step with the text: "
    "on a text ten times longer, your code may take a few times ten as long (its own CPU "
    "time), never the square."
)
@pytest.mark.points(3)
def test_a_long_document(submission, reference):
    # The pipeline the calls go to: a new one when a timing stopped at its cap ended the
    # worker the one before lived in.
    pipes = [keep_all(submission, *LONG_SETTINGS)]

    def method_of_a_new_pipeline(name: str) -> Callable[[], Callable[..., Any]]:
        def again() -> Callable[..., Any]:
            pipes.append(keep_all(submission, *LONG_SETTINGS))
            return method_of(pipes[-1], name)

        return again

    pipe = pipes[0]
    chunk_text = method_of(pipe, "chunk_text")

    def cuts_follow_the_rules(expected: list[str]) -> Judge:
        # The reference's chunks follow the rules, so an answer equal to them need not
        # cross from the worker; any other is checked against the rules themselves.
        def judge(args: tuple, answer: Any, given: Any) -> None:
            if answer is expected:
                return  # the reference's own chunks: a list of str that follows the rules
            chunks = expect_list_of_strings(
                answer, given=given, expected="a list of str", item="chunk"
            )
            check_cuts(pipe, args[0], chunks)

        return judge

    expect_long_document(
        chunk_text,
        lambda text: (text,),
        long_reference(reference),
        cuts_follow_the_rules,
        again=method_of_a_new_pipeline("chunk_text"),
    )
    # The same kind of text as a document (texts chunk_text was not given): finding each
    # chunk's char_start must not search the body again from its start for every chunk.
    process_document = method_of(pipes[-1], "process_document")

    def fields_follow_the_rules(expected: list[dict[str, Any]]) -> Judge:
        def judge(args: tuple, answer: Any, given: Any) -> None:
            if answer is expected:
                return  # the reference's own chunk dicts
            expect_chunk_dicts(answer, given)
            body = args[0]["body"]
            texts = [chunk["text"] for chunk in answer]
            check_cuts(pipe, body, texts)
            starts = cut_starts(body, LONG_SETTINGS[1], texts, given)
            for index, (chunk, start) in enumerate(zip(answer, starts, strict=True)):
                wanted = {
                    "doc_id": LONG_DOCUMENT_ID,
                    "chunk_index": index,
                    "text": chunk["text"],
                    "char_start": start,
                    "metadata": {},
                }
                # Some 15,000 chunks: the message is made only for a chunk that is wrong.
                if {key: chunk[key] for key in CHUNK_KEYS} != wanted:
                    fail(given=given, expected=f"chunk {index} to be {wanted}", got=plain(chunk))

        return judge

    expect_long_document(
        process_document,
        lambda text: ({"id": LONG_DOCUMENT_ID, "body": text},),
        long_document_reference(reference),
        fields_follow_the_rules,
        again=method_of_a_new_pipeline("process_document"),
        check=1,
    )


def method_of(pipe: Pipeline, name: str) -> Callable[..., Any]:
    return named(getattr(pipe.instance, name), f"{pipe.label}.{name}")


LONG_DOCUMENT_ID = "long"


@cache
def long_document_reference(reference: ModuleType) -> Callable[[dict[str, str]], list]:
    """The reference's process_document with the long document's settings, one per module."""

    def process_document(doc: dict[str, str]) -> list:
        pipe = reference.ChunkingPipeline(*LONG_SETTINGS, min_chunk_size=0)
        return pipe.process_document(doc)

    return process_document


@cache
def long_reference(reference: ModuleType) -> Callable[[str], list[str]]:
    """The reference's chunk_text with the long document's settings.

    One function for each reference module, so that its answers on the long texts
    are worked out once per grading process, not once per submission (the
    reference's answers are kept by function: see `reference_answer`).
    """

    def chunk_text(text: str) -> list[str]:
        return reference_chunks(reference, *LONG_SETTINGS, text)

    return chunk_text


def reference_chunks(reference: Any, chunk_size: int, overlap: int, text: str) -> list[str]:
    """The reference's chunk_text of `text`, dropping nothing."""
    pipe = reference.ChunkingPipeline(chunk_size=chunk_size, overlap=overlap, min_chunk_size=0)
    return pipe.chunk_text(text)


# Every input a failed check of this file may try (asked before any hidden check).
TRIED = (
    CUT_TRIES,
    SENTENCE_TRIES,
    EDGE_TRIES,
    LENGTH_TRIES,
    PIECES_TRIES,
    ONE_ANSWER_TRIES,
    END_TRIES,
    FITS_TRIES,
    INVALID_TRIES,
    DEFAULTS_TRIES,
    SHORT_DROP_TRIES,
    FIELDS_TRIES,
    CHAR_START_TRIES,
    NO_BODY_TRIES,
    BATCH_TRIES,
    BLANK_TRIES,
    ID_TRIES,
    INVISIBLE_TRIES,
    CUT_FROM_TRIES,
    INDEX_TRIES,
    METADATA_TRIES,
    BATCH_INDEX_TRIES,
    UNCHANGED_TRIES,
)
