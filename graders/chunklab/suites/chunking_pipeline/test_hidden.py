"""Hidden checks of the chunking_pipeline lesson: edge cases and properties on random texts."""

from __future__ import annotations

from typing import Any

import pytest

from chunklab.suites.checks import (
    DrawnCases,
    expect,
    expect_for_all,
    same_value,
    shorten,
)
from chunklab.suites.chunking_pipeline.test_visible import (
    STORY,
    WORDS,
    Described,
    Pipeline,
    check_cuts,
    cut_starts,
    expect_chunks,
    keep_all,
    plain,
)

pytestmark = pytest.mark.visibility("hidden")


# --- Settings -----------------------------------------------------------------------------


@pytest.mark.rule(
    "Settings just inside the limits are accepted and work: chunk_size 1, overlap 0, overlap "
    "chunk_size - 1, min_chunk_size 0."
)
@pytest.mark.points(1)
def test_edge_settings_accepted(submission):
    one = keep_all(submission, 1, 0)
    expect_chunks(one, "abc", ["a", "b", "c"])
    text = "abcdefghijklmnop"
    crawl = keep_all(submission, 10, 9)
    expect_chunks(crawl, text, [text[i : i + 10] for i in range(7)])


@pytest.mark.rule("ChunkingPipeline() uses chunk_size 500, overlap 50 and min_chunk_size 100.")
@pytest.mark.points(1)
def test_defaults(submission):
    pipe = Pipeline(submission)
    for text, lengths in (("a" * 1200, [500, 500, 300]), ("b" * 99, []), ("b" * 100, [100])):
        # One letter repeated: the chunks are right exactly when their lengths are.
        chunks = pipe.chunk_text(text)
        got = [len(chunk) for chunk in chunks]
        expect(
            got == lengths,
            given=pipe.given("chunk_text", text),
            expected=f"chunks of these lengths: {lengths}",
            got=Described(f"lengths {got}"),
        )


# --- Cutting ------------------------------------------------------------------------------


@pytest.mark.rule(
    "!, ? and . all end sentences, whatever whitespace follows them: a space, a tab, a line "
    "break or a non-breaking space."
)
@pytest.mark.points(1)
def test_every_mark_and_whitespace_ends_sentences(submission):
    text = (
        "Wait! Are you really sure about that?\tYes, I am completely sure!\nThen go right "
        "ahead and do it?\u00a0Fine, I will go now and see them all! Really?\r\nYes, really!"
    )
    for chunk_size, overlap in ((30, 6), (45, 10)):
        check_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "A ., ! or ? ends a sentence only when whitespace follows it inside the window (not in "
    "3.14, not as the window's last character)."
)
@pytest.mark.points(1)
def test_mark_needs_whitespace_in_window(submission):
    numbers = "Pi is about 3.14159 and e is about 2.71828 while tau is 6.28318 or so"
    check_cuts(keep_all(submission, 24, 4), numbers)
    edge = "aaa bbb ccc dd. eee fff ggg hhh iii"
    check_cuts(keep_all(submission, 15, 3), edge)


@pytest.mark.rule(
    "Tabs, line breaks and non-breaking spaces are whitespace too (str.isspace) when a chunk "
    "ends between words."
)
@pytest.mark.points(1)
def test_any_whitespace_separates_words(submission):
    text = "alpha\tbeta\ngamma\u00a0delta\u2003epsilon\tzeta\neta\u00a0theta\u2003iota\tkappa"
    for chunk_size, overlap in ((14, 3), (20, 0)):
        check_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "A sentence end or whitespace that would not move the next chunk forward does not count, "
    "so chunking always finishes."
)
@pytest.mark.points(2)
def test_never_stalls(submission):
    cases = (
        # The first chunk ends at "one. "; in the next window that sentence end lies
        # inside the overlap, and ending there again would start the same chunk again.
        (20, 8, "Short one. a long run of words without any marks for quite a while now"),
        # The only whitespace of the first window lies inside the overlap.
        (12, 4, "ab cdefghijklmnopqrstuvwxyz0123456789"),
        (6, 4, "A. B. C. D. E. F. G. H. I. J."),
        (10, 9, STORY),
    )
    for chunk_size, overlap, text in cases:
        check_cuts(keep_all(submission, chunk_size, overlap), text)


@pytest.mark.rule(
    "A chunk whose window reaches the end of the text is the last chunk, whole, even with a "
    "sentence end inside it."
)
@pytest.mark.points(1)
def test_window_reaching_end_is_last(submission):
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
    body = "Echo. " * 12
    doc = {"id": "echo", "title": "Echo", "body": body}
    pipe = keep_all(submission, 20, 5)
    chunks = pipe.process_document(doc)
    given = pipe.given("process_document", doc)
    starts = cut_starts(body, 5, [chunk["text"] for chunk in chunks], given)
    for k, (chunk, start) in enumerate(zip(chunks, starts, strict=True)):
        expect(
            chunk["char_start"] == start,
            given=given,
            expected=f"chunk {k}'s char_start to be {start}, where it was cut from",
            got=chunk["char_start"],
        )


@pytest.mark.rule(
    "chunk_index counts 0, 1, 2, ... over the chunks returned, after short ones are dropped."
)
@pytest.mark.points(1)
def test_chunk_index_after_dropping(submission):
    doc = {"id": "story", "title": "A cat", "body": STORY}
    pipe = Pipeline(submission, chunk_size=30, overlap=4, min_chunk_size=14)
    chunks = pipe.process_document(doc)
    indexes = [chunk["chunk_index"] for chunk in chunks]
    expect(
        indexes == list(range(len(chunks))),
        given=pipe.given("process_document", doc),
        expected=f"chunk_index values {list(range(len(chunks)))}",
        got=indexes,
    )


@pytest.mark.rule(
    "Each chunk's metadata equals the document's metadata, and is {} when the document has "
    "none or it is None."
)
@pytest.mark.points(1)
def test_metadata_carried(submission):
    pipe = keep_all(submission, 40, 5)
    metadata = {"lang": "en", "tags": ["cat", "night"], "year": 2024}
    for doc, wanted in (
        ({"id": "m", "title": "T", "body": STORY, "metadata": metadata}, metadata),
        ({"id": "n", "title": "T", "body": STORY}, {}),
        ({"id": "o", "title": "T", "body": STORY, "metadata": None}, {}),
    ):
        chunks = pipe.process_document(doc)
        for k, chunk in enumerate(chunks):
            expect(
                same_value(chunk["metadata"], wanted),
                given=pipe.given("process_document", doc),
                expected=f"chunk {k}'s metadata to be {wanted}",
                got=plain(chunk["metadata"]),
            )


@pytest.mark.rule("process_batch starts chunk_index again at 0 for each document.")
@pytest.mark.points(1)
def test_batch_counts_index_per_document(submission):
    docs = [
        {"id": "story", "title": "A cat", "body": STORY},
        {"id": "words", "title": "A fox", "body": WORDS},
    ]
    pipe = keep_all(submission, 30, 5)
    batch = pipe.process_batch(docs)
    for doc in docs:
        indexes = [chunk["chunk_index"] for chunk in batch if chunk["doc_id"] == doc["id"]]
        expect(
            len(indexes) > 1 and indexes == list(range(len(indexes))),
            given=pipe.given("process_batch", docs),
            expected=f"the chunks of {doc['id']!r} to have chunk_index 0, 1, 2, ...",
            got=indexes,
        )


# --- Properties on random texts -----------------------------------------------------------

INPUTS = "chunklab.suites.chunking_pipeline.hidden_inputs"
RANDOM_TEXTS = DrawnCases(f"{INPUTS}:texts_and_settings", 24)
RANDOM_DROPS = DrawnCases(f"{INPUTS}:texts_settings_and_least", 16)


@pytest.mark.rule(
    "On random texts (unicode, tabs, line breaks, long words) and settings, every chunk follows "
    "all of the cutting rules."
)
@pytest.mark.points(2)
def test_random_texts_follow_cutting_rules(submission):
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
    every = keep_all(submission, chunk_size, overlap).process_document(doc)
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
