"""Hidden checks of char_chunk: every public rule again on other inputs, the consequences of
the rules, edge cases, random texts and a long document."""

import pytest

from chunklab.suites.checks import (
    answers,
    building_on,
    call_given,
    expect,
    expect_for_all,
    expect_list_of_strings,
    expect_overlaps_shared,
    expect_raises,
    expect_result,
    expect_results,
    fail,
    list_of_strings,
    result_of,
    same_as_reference,
    send_ahead,
    shorten,
)
from chunklab.suites.kept_inputs import hidden_inputs
from chunklab.suites.long_texts import (
    LONG_TEXT_SECONDS,
    expect_long_document,
)
from chunklab.suites.tries import (
    CHAR_CALLS,
    CHAR_INVALID,
    MOST_TRIES,
    TriedCalls,
    first_failing,
    offering,
)

pytestmark = pytest.mark.visibility("hidden")

# Every input a failed check of this file may try (asked before any hidden check).
TRIED = (TriedCalls("chunk", (*CHAR_CALLS, *CHAR_INVALID)),)

# The rule the consequence checks build on: with the wrong number of chunks or the
# wrong lengths, how neighbours relate says nothing new.
COUNT_RULE = (
    "There are as many chunks as windows it takes to reach the end of the text, and every "
    "chunk except the last has exactly size characters."
)

# Valid calls whose chunks the consequence checks look at, each needing several chunks:
# letters, spaces, line breaks, accents, an emoji.
VALID_CALLS = [
    ("abcdefghijklmnopqrstuvwxyz", 5, 2),
    ("the quick brown fox jumps over the lazy dog", 10, 3),
    ("abcdefgh", 3, 1),
    ("abcdef", 4, 2),
    ("abcdefghij", 3, 0),
    ("line one\nline two\n", 6, 5),
    ("héllo wörld, ça va? 🙂", 7, 3),
]


def window_count(length: int, size: int, overlap: int) -> int:
    """How many windows it takes to reach the end: 0 for an empty text."""
    if length == 0:
        return 0
    step = size - overlap
    return 1 + max(0, -(-(length - size) // step))


def check_count_and_lengths(fn, args: tuple, answer) -> list[str]:
    """`answer`, the answer to `fn(*args)`, has the right number of chunks of the right lengths."""
    text, size, overlap = args
    given = call_given(fn, args)
    chunks = expect_list_of_strings(answer, given=given)
    count = window_count(len(text), size, overlap)
    expect(len(chunks) == count, given=given, expected=f"{count} chunks", got=chunks)
    short = next((k for k, chunk in enumerate(chunks[:-1]) if len(chunk) != size), None)
    if short is not None:
        fail(
            given=given,
            expected=f"chunk {short} to have {size} characters, as every chunk but the last",
            got=chunks[short],
        )
    last = len(text) - (count - 1) * (size - overlap)
    expect(
        not chunks or len(chunks[-1]) == last,
        given=given,
        expected=f"the last chunk to have the {last} characters that are left",
        got=chunks[-1] if chunks else chunks,
    )
    return chunks


def counted_chunks(fn, args: tuple, answer) -> list[str]:
    return building_on(COUNT_RULE, lambda: check_count_and_lengths(fn, args, answer))


# --- Inputs to try: a failure offers a public or made-up input that shows it ----------


def several_windows(call: tuple) -> bool:
    text, size, _ = call
    return len(text) > size


def last_window_ends_the_text(call: tuple) -> bool:
    text, size, overlap = call
    return len(text) > size and (len(text) - size) % (size - overlap) == 0


def trying(submission, keep, check, calls=CHAR_CALLS):
    """The check's body; on a failure, the first input of `calls` that `keep` allows and
    `check` fails on is offered to try."""

    def find() -> str:
        cases = [call for call in calls if keep(call)][:MOST_TRIES]
        return first_failing(send_ahead(submission, "chunk", cases), check)

    return offering(find)


def trying_windows(submission, reference, keep=several_windows):
    """On a failure, offers an input whose chunks differ from the lesson's windows."""
    return trying(
        submission,
        keep,
        lambda call: expect_result(submission.chunk, call, reference.chunk(*call)),
    )


def trying_invalid(submission, keep):
    """On a failure, offers invalid settings that do not raise ValueError."""
    return trying(
        submission,
        keep,
        lambda call: expect_raises(submission.chunk, call, ValueError),
        calls=CHAR_INVALID,
    )


def special_characters(call: tuple) -> bool:
    """A text holding a character beyond ASCII, or whitespace other than a space."""
    text = call[0]
    return not text.isascii() or any(char.isspace() and char != " " for char in text)


def broken_setting(call: tuple) -> str:
    _, size, overlap = call
    return "size" if size <= 0 else "negative" if overlap < 0 else "too large"


# --- The public rules, on other inputs ---------------------------------------------------


@pytest.mark.rule(
    "Each chunk is the window text[i:i+size]: i starts at 0 and moves forward by size - overlap."
)
@pytest.mark.points(2)
def test_windows_move_forward_on_other_texts(submission, reference):
    with trying_windows(submission, reference):
        calls = [
            ("RAG systems retrieve chunks", 6, 2),
            ("0123456789abcdef", 5, 1),
            ("mississippi", 4, 3),
            # The same text again with other settings, one call after another: each call's
            # chunks come from its own settings, never from an earlier call.
            ("mississippi", 3, 1),
            ("mississippi", 4, 1),
            ("mississippi", 4, 0),
        ]
        same_as_reference(submission, reference, "chunk", calls)


@pytest.mark.rule(
    "Stop as soon as a window reaches the end of the text, so no tiny trailing scrap follows it."
)
@pytest.mark.points(2)
def test_stop_at_the_end_on_other_texts(submission, reference):
    with trying_windows(submission, reference, last_window_ends_the_text):
        # Each last window ends exactly where the text ends.
        calls = [("abcdefghij", 4, 1), ("0123456789", 6, 2), ("xyxyxyxyxyxyx", 5, 3)]
        same_as_reference(submission, reference, "chunk", calls)


@pytest.mark.rule("The last chunk holds what is left of the text, so it may be shorter than size.")
@pytest.mark.points(1)
def test_last_chunk_holds_what_is_left_on_other_texts(submission, reference):
    with trying_windows(
        submission, reference, lambda c: several_windows(c) and not last_window_ends_the_text(c)
    ):
        calls = [("abcdefghijk", 4, 1), ("hello there", 3, 0), ("a longer text here", 7, 2)]
        same_as_reference(submission, reference, "chunk", calls)


@pytest.mark.rule("Empty text gives an empty list [].")
@pytest.mark.points(1)
def test_empty_text_with_other_settings(submission, reference):
    with trying_windows(submission, reference, lambda call: call[0] == ""):
        for args in send_ahead(submission, "chunk", [("", 1, 0), ("", 9, 8), ("", 100, 10)]):
            expect_result(submission.chunk, args, [])


@pytest.mark.rule("A text no longer than size is one chunk: the whole text.")
@pytest.mark.points(1)
def test_one_chunk_with_other_texts(submission, reference):
    with trying_windows(submission, reference, lambda c: 0 < len(c[0]) <= c[1]):
        cases = [("a", 1, 0), (" \t\n", 3, 1), ("abc", 7, 0), ("é🙂", 2, 1), ("hi", 6, 4)]
        for text, size, overlap in send_ahead(submission, "chunk", cases):
            expect_result(submission.chunk, (text, size, overlap), [text])


# Random inputs, drawn once and kept with the kit (hidden_inputs.json).
VALID_RANDOM_CALLS = hidden_inputs(__file__, "valid_calls")
INVALID_RANDOM_CALLS = hidden_inputs(__file__, "invalid_calls")


def random_invalid(kind: str) -> list[tuple[str, int, int]]:
    def broken(size: int, overlap: int) -> str:
        return "size" if size <= 0 else "negative" if overlap < 0 else "too large"

    return [call for call in INVALID_RANDOM_CALLS if broken(*call[1:]) == kind]


def all_raise(submission, calls) -> None:
    expect_for_all(
        send_ahead(submission, "chunk", calls),
        lambda call: expect_raises(submission.chunk, call, ValueError),
    )


@pytest.mark.rule("A size of 0 or less raises ValueError.")
@pytest.mark.points(1)
def test_size_of_zero_or_less_raises_on_other_inputs(submission):
    with trying_invalid(submission, lambda call: broken_setting(call) == "size"):
        all_raise(submission, [("hello world", 0, 0), ("x", -1, 0), *random_invalid("size")])


@pytest.mark.rule("A negative overlap raises ValueError.")
@pytest.mark.points(1)
def test_negative_overlap_raises_on_other_inputs(submission):
    with trying_invalid(submission, lambda call: broken_setting(call) == "negative"):
        all_raise(submission, [("hello world", 4, -2), ("x", 1, -1), *random_invalid("negative")])


@pytest.mark.rule(
    "An overlap equal to or larger than size raises ValueError: "
    "the window would never move forward."
)
@pytest.mark.points(1)
def test_overlap_not_smaller_than_size_raises_on_other_inputs(submission):
    with trying_invalid(submission, lambda call: broken_setting(call) == "too large"):
        all_raise(submission, [("hello world", 1, 1), ("x", 4, 9), *random_invalid("too large")])


@pytest.mark.rule("chunk returns a list of strings, not a tuple or a generator.")
@pytest.mark.points(1)
def test_returns_a_list_of_strings_on_other_inputs(submission):
    with trying(
        submission, lambda call: True, lambda call: list_of_strings(submission.chunk, call)
    ):
        for args in [("abcdefghij", 3, 1), ("a", 2, 0)]:
            list_of_strings(submission.chunk, args)


# --- Consequences of the rules -------------------------------------------------------------


@pytest.mark.rule(
    "There are as many chunks as windows it takes to reach the end of the text, and every "
    "chunk except the last has exactly size characters."
)
@pytest.mark.points(2)
def test_chunk_count_and_lengths(submission):
    with trying(
        submission,
        several_windows,
        lambda call: check_count_and_lengths(
            submission.chunk, call, result_of(submission.chunk, call)
        ),
    ):
        for call, chunks in answers(submission, "chunk", VALID_CALLS):
            check_count_and_lengths(submission.chunk, call, chunks)


@pytest.mark.rule(
    "The last overlap characters of each chunk are the first overlap characters of the next chunk."
)
@pytest.mark.points(2)
def test_neighbours_share_overlap_characters(submission):
    with trying(submission, several_windows, lambda call: check_neighbours(submission.chunk, call)):
        for call, answer in answers(submission, "chunk", VALID_CALLS):
            check_neighbours(submission.chunk, call, answer)


def check_neighbours(fn, call: tuple, answer=None) -> None:
    """Each chunk after the first starts with the last overlap characters of the one before."""
    _, _, overlap = call
    answer = result_of(fn, call) if answer is None else answer
    chunks = counted_chunks(fn, call, answer)
    expect_overlaps_shared(
        chunks, overlap, call_given(fn, call), unit="characters", pieces=str, joined=str
    )


@pytest.mark.rule(
    "chunks[0] followed by c[overlap:] for every later chunk c rebuilds the text exactly: "
    "no character is lost or doubled."
)
@pytest.mark.points(2)
def test_chunks_rebuild_the_text_exactly(submission):
    with trying(submission, several_windows, lambda call: check_rebuilt(submission.chunk, call)):
        for call, answer in answers(submission, "chunk", VALID_CALLS):
            check_rebuilt(submission.chunk, call, answer)


def check_rebuilt(fn, call: tuple, answer=None) -> None:
    """chunks[0] and c[overlap:] of every later chunk give back the text."""
    text, _, overlap = call
    answer = result_of(fn, call) if answer is None else answer
    chunks = counted_chunks(fn, call, answer)
    rebuilt = chunks[0] + "".join(c[overlap:] for c in chunks[1:])
    if rebuilt != text:
        fail(
            given=call_given(fn, call),
            expected=(
                f"chunks[0] followed by c[{overlap}:] of every later chunk c to give back "
                f"the text; your chunks give back {shorten(rebuilt, 80)}"
            ),
            got=chunks,
        )


@pytest.mark.rule(
    "The smallest settings work too: size 1 gives one character per chunk, "
    "and overlap size - 1 moves the window one character at a time."
)
@pytest.mark.points(1)
def test_smallest_size_and_largest_overlap(submission, reference):
    with trying_windows(submission, reference, lambda c: c[1] == 1 or c[2] == c[1] - 1):
        cases = [
            (("abc", 1, 0), ["a", "b", "c"]),
            (("abcde", 3, 2), ["abc", "bcd", "cde"]),
            (("x", 1, 0), ["x"]),
        ]
        expect_results(submission, "chunk", cases)


@pytest.mark.rule(
    "Every character counts as it is: spaces, tabs, line breaks (\\n, \\r\\n and a lone \\r), "
    "other Unicode whitespace (\\x85, \\u2028, \\u3000), accented letters and invisible "
    "characters (\\ufeff, \\u200b, \\u00ad) are cut into chunks unchanged; nothing is "
    "removed, normalised or expanded."
)
@pytest.mark.points(2)
def test_whitespace_and_accents_are_ordinary_characters(submission, reference):
    with trying_windows(submission, reference, special_characters):
        cases = [
            (("  ab  cd  ", 4, 1), ["  ab", "b  c", "cd  "]),
            (("héllo\nwörld ✓", 5, 2), ["héllo", "lo\nwö", "wörld", "ld ✓"]),
            (("a\tb\r\nc\rd", 3, 1), ["a\tb", "b\r\n", "\nc\r", "\rd"]),
            (("x\x85y\u2028z\u3000w", 2, 0), ["x\x85", "y\u2028", "z\u3000", "w"]),
            # Text that Unicode normalisation would change: an accent written as a combining
            # character of its own after its letter, ligatures, full-width forms, the Angstrom
            # and Ohm signs, Korean written as separate jamo. Each character counts as it is.
            (("Cafe\u0301 au lait", 5, 1), ["Cafe\u0301", "\u0301 au ", " lait"]),
            (
                ("\ufb01ne \ufb02ow \uff21\uff11", 3, 1),
                ["\ufb01ne", "e \ufb02", "\ufb02ow", "w \uff21", "\uff21\uff11"],
            ),
            (
                ("\u212b\u2126 \u212a\u1100\u1161", 2, 0),
                ["\u212b\u2126", " \u212a", "\u1100\u1161"],
            ),
            # Invisible characters: a byte order mark, a zero-width space and joiner, a soft
            # hyphen.
            (("\ufeffab\u200bcd\u200d\u00ad", 2, 0), ["\ufeffa", "b\u200b", "cd", "\u200d\u00ad"]),
        ]
        expect_results(submission, "chunk", cases)


@pytest.mark.rule("Invalid settings raise ValueError even when the text is shorter than size.")
@pytest.mark.points(1)
def test_invalid_settings_raise_even_for_a_short_text(submission):
    with trying_invalid(submission, lambda c: c[0] != "" and (c[1] <= 0 or len(c[0]) < c[1])):
        for args in send_ahead(submission, "chunk", [("ab", 5, 5), ("ab", 5, -1), ("a", 0, 0)]):
            expect_raises(submission.chunk, args, ValueError)


@pytest.mark.rule(
    "Invalid settings raise ValueError even when the text is empty: the settings are checked "
    "before anything else."
)
@pytest.mark.points(1)
def test_invalid_settings_raise_even_for_an_empty_text(submission):
    with trying_invalid(submission, lambda call: call[0] == ""):
        calls = [("", 0, 0), ("", 3, -1), ("", 3, 3), ("", -4, 1)]
        for args in send_ahead(submission, "chunk", calls):
            expect_raises(submission.chunk, args, ValueError)


@pytest.mark.rule(
    "For any text, size and valid overlap, the chunks are exactly the windows text[i:i+size], "
    "taken every size - overlap characters until one reaches the end."
)
@pytest.mark.points(3)
def test_random_texts_give_exactly_the_windows(submission, reference):
    with trying_windows(submission, reference, lambda call: True):
        expect_for_all(
            send_ahead(submission, "chunk", VALID_RANDOM_CALLS),
            lambda call: expect_result(submission.chunk, call, reference.chunk(*call)),
        )


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
    # Small windows: many chunks, so work that grows with the square of the text shows.
    expect_long_document(submission.chunk, lambda text: (text, 10, 2), reference.chunk)
