"""Hidden checks of word_chunk: every public rule again on other inputs, the cases the lesson
lists, properties, random texts and a long document."""

import pytest

from chunklab.suites.checks import (
    answers,
    building_on,
    call_given,
    expect,
    expect_for_all,
    expect_list_of_strings,
    expect_overlaps_shared,
    expect_result,
    expect_results,
    fail,
    list_of_strings,
    result_of,
    same_as_reference,
    send_ahead,
)
from chunklab.suites.kept_inputs import hidden_inputs
from chunklab.suites.long_texts import (
    LONG_TEXT_SECONDS,
    expect_long_document,
)
from chunklab.suites.tries import (
    MOST_TRIES,
    WORD_CALLS,
    TriedCalls,
    first_failing,
    offering,
    word_count,
)

pytestmark = pytest.mark.visibility("hidden")

# Every input a failed check of this file may try (asked before any hidden check).
TRIED = (TriedCalls("solve", tuple(WORD_CALLS)),)

# The rule the overlap check builds on: with the wrong number of chunks or of words in
# them, how neighbours relate says nothing new.
COUNT_RULE = (
    "There are as many chunks as windows it takes to reach the last word, and every chunk "
    "except the last holds exactly size words."
)


def check_count_and_lengths(fn, args: tuple, answer) -> list[str]:
    """`answer`, the answer to `fn(*args)`, has the right number of chunks of the right size."""
    text, size, overlap = args
    given = call_given(fn, args)
    chunks = expect_list_of_strings(answer, given=given)
    words = len(text.split())
    step = size - overlap
    count = 0 if words == 0 else 1 + max(0, -(-(words - size) // step))
    expect(len(chunks) == count, given=given, expected=f"{count} chunks", got=chunks)
    short = next((k for k, chunk in enumerate(chunks[:-1]) if len(chunk.split()) != size), None)
    if short is not None:
        fail(
            given=given,
            expected=f"chunk {short} to hold {size} words, as every chunk but the last",
            got=chunks[short],
        )
    return chunks


def counted_chunks(fn, args: tuple, answer) -> list[str]:
    return building_on(COUNT_RULE, lambda: check_count_and_lengths(fn, args, answer))


# --- Inputs to try: a failure offers a public or made-up input that shows it ----------


def several_chunks(call: tuple) -> bool:
    text, size, _ = call
    return word_count(text) > size


def last_chunk_ends_the_words(call: tuple) -> bool:
    text, size, overlap = call
    words = word_count(text)
    return words > size and (words - size) % (size - overlap) == 0


def other_whitespace(call: tuple) -> bool:
    """Words separated by more than single spaces."""
    text = call[0]
    return word_count(text) > 1 and " ".join(text.split()) != text


def trying(submission, reference, keep, check=None):
    """The check's body; on a failure, the first input of the lesson's tries that `keep`
    allows and `check` fails on is offered to try (by default: the lesson's windows)."""

    def same_as_the_lesson(call: tuple) -> None:
        expect_result(submission.solve, call, reference.solve(*call))

    def find() -> str:
        cases = [call for call in WORD_CALLS if keep(call)][:MOST_TRIES]
        return first_failing(send_ahead(submission, "solve", cases), check or same_as_the_lesson)

    return offering(find)


# --- The public rules, on other inputs ---------------------------------------------------


@pytest.mark.rule(
    "A chunk is size consecutive words joined by single spaces, "
    "and the next chunk starts size - overlap words later."
)
@pytest.mark.points(2)
def test_word_windows_on_other_texts(submission, reference):
    with trying(submission, reference, several_chunks):
        calls = [
            ("one two three four five six seven eight", 3, 1),
            ("retrieval works on pieces of documents not whole ones", 4, 1),
            ("a b c d e f g", 2, 1),
            # The same text again with other settings, one call after another: each call's
            # chunks come from its own settings, never from an earlier call.
            ("a b c d e f g", 3, 1),
            ("a b c d e f g", 3, 0),
            ("a b c d e f g", 2, 1),
            # Overlaps above half the size: the step is still size - overlap words.
            ("a b c d e f g", 4, 3),
            ("one two three four five six", 5, 3),
        ]
        same_as_reference(submission, reference, "solve", calls)


@pytest.mark.rule("Stop once a chunk holds the last word: no chunk follows it.")
@pytest.mark.points(2)
def test_stop_at_the_last_word_on_other_texts(submission, reference):
    with trying(submission, reference, last_chunk_ends_the_words):
        # Each last chunk ends exactly with the last word.
        calls = [("p q r s t u v", 3, 1), ("w1 w2 w3 w4 w5 w6", 4, 2), ("x y z", 2, 1)]
        same_as_reference(submission, reference, "solve", calls)


@pytest.mark.rule(
    "The last chunk holds the words that are left, so it may have fewer than size words."
)
@pytest.mark.points(1)
def test_last_chunk_holds_what_is_left_on_other_texts(submission, reference):
    with trying(
        submission, reference, lambda c: several_chunks(c) and not last_chunk_ends_the_words(c)
    ):
        calls = [("one two three four five six seven", 3, 0), ("a b c d e f", 4, 1)]
        same_as_reference(submission, reference, "solve", calls)


@pytest.mark.rule("A text with no words, empty or only spaces, gives an empty list [].")
@pytest.mark.points(1)
def test_no_words_with_other_settings(submission, reference):
    with trying(submission, reference, lambda call: word_count(call[0]) == 0):
        for args in send_ahead(submission, "solve", [("", 1, 0), ("     ", 5, 4), (" ", 1, 0)]):
            expect_result(submission.solve, args, [])


@pytest.mark.rule(
    "Words are runs of non-whitespace characters: spaces, tabs and line breaks all separate words."
)
@pytest.mark.points(1)
def test_whitespace_separates_words_on_other_texts(submission, reference):
    with trying(submission, reference, other_whitespace):
        calls = [("alpha\nbeta\tgamma  delta\r\nepsilon", 2, 0), ("x\n\ny\t\tz", 1, 0)]
        same_as_reference(submission, reference, "solve", calls)


@pytest.mark.rule(
    "Whitespace is any character for which str.isspace() is true: line breaks such as \\x85 "
    "and \\u2028, the non-breaking space \\xa0 and wide spaces such as \\u2003 and \\u3000 "
    "separate words too."
)
@pytest.mark.points(2)
def test_unicode_whitespace_separates_words(submission, reference):
    with trying(submission, reference, lambda c: other_whitespace(c) and not c[0].isascii()):
        cases = [
            (("one\u2028two\x85three\xa0four", 2, 1), ["one two", "two three", "three four"]),
            (
                ("\u3000wide\u3000space\u2003em\u2029para\tgraph\u202f", 2, 0),
                ["wide space", "em para", "graph"],
            ),
        ]
        expect_results(submission, "solve", cases)


@pytest.mark.rule("solve returns a list of strings: each chunk is one string, not a list of words.")
@pytest.mark.points(1)
def test_returns_a_list_of_strings_on_other_inputs(submission, reference):
    with trying(submission, reference, bool, lambda call: list_of_strings(submission.solve, call)):
        for args in send_ahead(
            submission, "solve", [("red green blue yellow", 2, 1), ("solo", 3, 2)]
        ):
            list_of_strings(submission.solve, args)


@pytest.mark.rule(
    "There are as many chunks as windows it takes to reach the last word, and every chunk "
    "except the last holds exactly size words."
)
@pytest.mark.points(2)
def test_chunk_count_and_words_per_chunk(submission, reference):
    with trying(
        submission,
        reference,
        several_chunks,
        lambda call: check_count_and_lengths(
            submission.solve, call, result_of(submission.solve, call)
        ),
    ):
        for call, chunks in answers(submission, "solve", OVERLAPPING_CALLS):
            check_count_and_lengths(submission.solve, call, chunks)


# --- The cases the lesson lists ------------------------------------------------------------


@pytest.mark.rule(
    "Extra spaces and line breaks between words count as one separator; "
    "chunks join their words with exactly one space."
)
@pytest.mark.points(2)
def test_extra_spaces_and_a_line_break(submission, reference):
    with trying(submission, reference, other_whitespace):
        # No word twice: a mistake about repeated words is the repeated-word check's.
        expect_result(
            submission.solve,
            ("the  cat   sat\non my\n\nmat", 3, 1),
            ["the cat sat", "sat on my", "my mat"],
        )


@pytest.mark.rule("When all the words fit in one chunk, the result is that single chunk.")
@pytest.mark.points(1)
def test_one_chunk_holds_everything(submission, reference):
    with trying(submission, reference, lambda c: 0 < word_count(c[0]) <= c[1]):
        cases = [
            (("a b c", 3, 1), ["a b c"]),
            (("alpha beta gamma delta", 4, 3), ["alpha beta gamma delta"]),
        ]
        expect_results(submission, "solve", cases)


@pytest.mark.rule("A text with fewer words than size gives one chunk holding all of them.")
@pytest.mark.points(1)
def test_fewer_words_than_size(submission, reference):
    with trying(submission, reference, lambda c: 0 < word_count(c[0]) < c[1]):
        expect_results(
            submission,
            "solve",
            [(("just two", 5, 2), ["just two"]), (("single", 3, 0), ["single"])],
        )


@pytest.mark.rule(
    "Spaces at the start and end of the text are not words: with size 1 every chunk is one word."
)
@pytest.mark.points(2)
def test_spaces_at_both_ends_with_size_one(submission, reference):
    with trying(
        submission, reference, lambda c: c[1] == 1 and c[0] != c[0].strip() and word_count(c[0]) > 0
    ):
        expect_result(submission.solve, ("  hello world  ", 1, 0), ["hello", "world"])


@pytest.mark.rule(
    "Words are kept exactly as written: punctuation, capital letters, hyphens and slashes, "
    "accents and invisible characters that are not whitespace (\\u200b, \\ufeff) stay."
)
@pytest.mark.points(1)
def test_punctuation_and_capital_letters_are_kept(submission, reference):
    with trying(
        submission,
        reference,
        lambda c: any(not ch.isalnum() and not ch.isspace() or ch.isupper() for ch in c[0]),
    ):
        cases = [
            (
                ("Hello, World! It's 5 o'clock.", 2, 1),
                ["Hello, World!", "World! It's", "It's 5", "5 o'clock."],
            ),
            # Hyphens, dashes and slashes join, they do not separate: only whitespace does.
            (
                ("a well-known fact and/or a\u2014b", 2, 1),
                ["a well-known", "well-known fact", "fact and/or", "and/or a\u2014b"],
            ),
            # Nothing in a word is normalised or removed: a byte order mark opening the text,
            # an accent written as its own character, a zero-width space, a soft hyphen.
            (
                ("\ufeffCafe\u0301 zero\u200bwidth soft\u00adhyphen end", 2, 0),
                ["\ufeffCafe\u0301 zero\u200bwidth", "soft\u00adhyphen end"],
            ),
        ]
        expect_results(submission, "solve", cases)


@pytest.mark.rule("A word repeated many times counts every time it appears.")
@pytest.mark.points(2)
def test_the_same_word_repeated_many_times(submission, reference):
    with trying(submission, reference, lambda c: len(set(c[0].split())) < word_count(c[0])):
        cases = [
            (("go go go go go go go", 3, 1), ["go go go"] * 3),
            (("la la la la", 2, 1), ["la la"] * 3),
        ]
        expect_results(submission, "solve", cases)


@pytest.mark.rule("A tab between two words separates them just like a space.")
@pytest.mark.points(1)
def test_a_tab_between_words(submission, reference):
    with trying(submission, reference, lambda c: "\t" in c[0].strip()):
        cases = [(("left\tright", 1, 0), ["left", "right"]), (("a\tb c", 2, 1), ["a b", "b c"])]
        expect_results(submission, "solve", cases)


@pytest.mark.rule("A text made only of tabs, line breaks and spaces has no words and gives [].")
@pytest.mark.points(1)
def test_only_tabs_line_breaks_and_spaces(submission, reference):
    with trying(submission, reference, lambda c: c[0] != "" and word_count(c[0]) == 0):
        expect_result(submission.solve, ("\t\n  \r\n", 3, 1), [])


# Calls whose chunks the overlap check looks at, down to overlap size - 1.
OVERLAPPING_CALLS = [
    ("one two three four five six seven", 3, 1),
    ("a b c d", 3, 2),
    ("to be or not to be that is the question", 4, 2),
    ("x y z", 1, 0),
]


@pytest.mark.rule("Each chunk starts with the last overlap words of the chunk before it.")
@pytest.mark.points(2)
def test_neighbours_share_overlap_words(submission, reference):
    with trying(
        submission, reference, several_chunks, lambda call: check_neighbours(submission.solve, call)
    ):
        for call, answer in answers(submission, "solve", OVERLAPPING_CALLS):
            check_neighbours(submission.solve, call, answer)


def check_neighbours(fn, call: tuple, answer=None) -> None:
    """Each chunk after the first starts with the last overlap words of the one before."""
    _, _, overlap = call
    answer = result_of(fn, call) if answer is None else answer
    chunks = counted_chunks(fn, call, answer)
    expect_overlaps_shared(
        chunks, overlap, call_given(fn, call), unit="words", pieces=str.split, joined=" ".join
    )


# Random inputs, drawn once and kept with the kit (hidden_inputs.json).
RANDOM_CALLS = hidden_inputs(__file__, "valid_calls")


@pytest.mark.rule(
    "For any text, size and overlap, the chunks are exactly the windows of size words, "
    "each starting size - overlap words after the one before, "
    "up to the chunk holding the last word."
)
@pytest.mark.points(3)
def test_random_texts_give_exactly_the_word_windows(submission, reference):
    with trying(submission, reference, bool):
        expect_for_all(
            send_ahead(submission, "solve", RANDOM_CALLS),
            lambda call: expect_result(submission.solve, call, reference.solve(*call)),
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
    expect_long_document(submission.solve, lambda text: (text, 3, 1), reference.solve)
