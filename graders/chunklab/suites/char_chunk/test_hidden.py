"""Hidden checks of char_chunk: the consequences of the rules, edge cases, random texts."""

from itertools import pairwise

import pytest

from chunklab.suites.checks import (
    DrawnCases,
    call_text,
    expect,
    expect_for_all,
    expect_raises,
    expect_result,
    result_of,
    send_ahead,
    shorten,
)

pytestmark = pytest.mark.visibility("hidden")


# Valid calls whose chunks the consequence checks look at: letters, spaces,
# line breaks, accents, an emoji; texts longer and shorter than size.
VALID_CALLS = [
    ("abcdefghijklmnopqrstuvwxyz", 5, 2),
    ("the quick brown fox jumps over the lazy dog", 10, 3),
    ("abcdefgh", 3, 1),
    ("abcdef", 4, 2),
    ("abcdefghij", 3, 0),
    ("line one\nline two\n", 6, 5),
    ("héllo wörld, ça va? 🙂", 7, 3),
    ("short", 8, 3),
]


def chunks_of(fn, args: tuple) -> list[str]:
    """The submission's chunks, after checking they are a list of strings."""
    chunks = result_of(fn, *args)
    expect(
        isinstance(chunks, list) and all(isinstance(c, str) for c in chunks),
        given=call_text(fn, args),
        expected="a list of strings",
        got=chunks,
    )
    return chunks


@pytest.mark.rule(
    "The last overlap characters of each chunk are the first overlap characters of the next chunk."
)
@pytest.mark.points(2)
def test_neighbours_share_overlap_characters(submission):
    send_ahead(submission, "chunk", VALID_CALLS)
    for text, size, overlap in VALID_CALLS:
        chunks = chunks_of(submission.chunk, (text, size, overlap))
        for k, (this, after) in enumerate(pairwise(chunks)):
            expect(
                overlap == 0 or this[-overlap:] == after[:overlap],
                given=call_text(submission.chunk, (text, size, overlap)),
                expected=(
                    f"chunk {k + 1} to start with the last {overlap} characters of chunk {k}, "
                    f"{shorten(this[-overlap:], 60)}"
                ),
                got=[this, after],
            )


@pytest.mark.rule(
    "chunks[0] followed by c[overlap:] for every later chunk c rebuilds the text exactly: "
    "no character is lost or doubled."
)
@pytest.mark.points(2)
def test_chunks_rebuild_the_text_exactly(submission):
    send_ahead(submission, "chunk", VALID_CALLS)
    for text, size, overlap in VALID_CALLS:
        chunks = chunks_of(submission.chunk, (text, size, overlap))
        rebuilt = chunks[0] + "".join(c[overlap:] for c in chunks[1:]) if chunks else ""
        expect(
            rebuilt == text,
            given=call_text(submission.chunk, (text, size, overlap)),
            expected=(
                f"chunks[0] followed by c[{overlap}:] of every later chunk c to give back "
                f"the text; your chunks give back {shorten(rebuilt, 80)}"
            ),
            got=chunks,
        )


@pytest.mark.rule("Every chunk except the last has exactly size characters.")
@pytest.mark.points(2)
def test_every_chunk_but_the_last_has_size_characters(submission):
    send_ahead(submission, "chunk", VALID_CALLS)
    for text, size, overlap in VALID_CALLS:
        chunks = chunks_of(submission.chunk, (text, size, overlap))
        short = [c for c in chunks[:-1] if len(c) != size]
        expect(
            not short,
            given=call_text(submission.chunk, (text, size, overlap)),
            expected=f"every chunk but the last to have {size} characters",
            got=chunks,
        )


@pytest.mark.rule(
    "The smallest settings work too: size 1 gives one character per chunk, "
    "and overlap size - 1 moves the window one character at a time."
)
@pytest.mark.points(1)
def test_smallest_size_and_largest_overlap(submission):
    expect_result(submission.chunk, ("abc", 1, 0), ["a", "b", "c"])
    expect_result(submission.chunk, ("abcde", 3, 2), ["abc", "bcd", "cde"])
    expect_result(submission.chunk, ("x", 1, 0), ["x"])


@pytest.mark.rule(
    "Every character counts as it is: spaces, line breaks and accented letters "
    "are cut into chunks unchanged, never removed."
)
@pytest.mark.points(1)
def test_whitespace_and_accents_are_ordinary_characters(submission):
    expect_result(submission.chunk, ("  ab  cd  ", 4, 1), ["  ab", "b  c", "cd  "])
    expect_result(submission.chunk, ("héllo\nwörld ✓", 5, 2), ["héllo", "lo\nwö", "wörld", "ld ✓"])


@pytest.mark.rule("Invalid settings raise ValueError even when the text is shorter than size.")
@pytest.mark.points(1)
def test_invalid_settings_raise_even_for_a_short_text(submission):
    expect_raises(submission.chunk, ("ab", 5, 5), ValueError)
    expect_raises(submission.chunk, ("ab", 5, -1), ValueError)
    expect_raises(submission.chunk, ("a", 0, 0), ValueError)


INPUTS = "chunklab.suites.char_chunk.hidden_inputs"
VALID_RANDOM_CALLS = DrawnCases(f"{INPUTS}:valid_calls", 30)
INVALID_RANDOM_CALLS = DrawnCases(f"{INPUTS}:invalid_calls", 15)


@pytest.mark.rule(
    "For any text, size and valid overlap, the chunks are exactly the windows text[i:i+size], "
    "taken every size - overlap characters until one reaches the end."
)
@pytest.mark.points(3)
def test_random_texts_give_exactly_the_windows(submission, reference):
    send_ahead(submission, "chunk", VALID_RANDOM_CALLS)
    expect_for_all(
        VALID_RANDOM_CALLS,
        lambda call: expect_result(submission.chunk, call, reference.chunk(*call)),
    )


@pytest.mark.rule(
    "Every invalid setting (size 0 or less, overlap below 0, overlap not smaller than size) "
    "raises ValueError."
)
@pytest.mark.points(1)
def test_random_invalid_settings_raise(submission):
    send_ahead(submission, "chunk", INVALID_RANDOM_CALLS)
    expect_for_all(
        INVALID_RANDOM_CALLS, lambda call: expect_raises(submission.chunk, call, ValueError)
    )
