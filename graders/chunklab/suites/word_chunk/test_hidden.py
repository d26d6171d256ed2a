"""Hidden checks of word_chunk: the cases the lesson lists, properties, random texts."""

from itertools import pairwise

import pytest

from chunklab.suites.checks import (
    DrawnCases,
    call_text,
    expect,
    expect_for_all,
    expect_result,
    result_of,
    send_ahead,
    shorten,
)

pytestmark = pytest.mark.visibility("hidden")


@pytest.mark.rule(
    "Extra spaces and line breaks between words count as one separator; "
    "chunks join their words with exactly one space."
)
@pytest.mark.points(2)
def test_extra_spaces_and_a_line_break(submission):
    expect_result(
        submission.solve,
        ("the  cat   sat\non the\n\nmat", 3, 1),
        ["the cat sat", "sat on the", "the mat"],
    )


@pytest.mark.rule("When all the words fit in one chunk, the result is that single chunk.")
@pytest.mark.points(1)
def test_one_chunk_holds_everything(submission):
    expect_result(submission.solve, ("a b c", 3, 1), ["a b c"])
    expect_result(submission.solve, ("alpha beta gamma delta", 4, 3), ["alpha beta gamma delta"])


@pytest.mark.rule("A text with fewer words than size gives one chunk holding all of them.")
@pytest.mark.points(1)
def test_fewer_words_than_size(submission):
    expect_result(submission.solve, ("just two", 5, 2), ["just two"])
    expect_result(submission.solve, ("single", 3, 0), ["single"])


@pytest.mark.rule(
    "Spaces at the start and end of the text are not words: with size 1 every chunk is one word."
)
@pytest.mark.points(2)
def test_spaces_at_both_ends_with_size_one(submission):
    expect_result(submission.solve, ("  hello world  ", 1, 0), ["hello", "world"])


@pytest.mark.rule("Words are kept exactly as written: punctuation and capital letters stay.")
@pytest.mark.points(1)
def test_punctuation_and_capital_letters_are_kept(submission):
    expect_result(
        submission.solve,
        ("Hello, World! It's 5 o'clock.", 2, 1),
        ["Hello, World!", "World! It's", "It's 5", "5 o'clock."],
    )


@pytest.mark.rule("A word repeated many times counts every time it appears.")
@pytest.mark.points(2)
def test_the_same_word_repeated_many_times(submission):
    expect_result(submission.solve, ("go go go go go go go", 3, 1), ["go go go"] * 3)
    expect_result(submission.solve, ("la la la la", 2, 1), ["la la"] * 3)


@pytest.mark.rule("A tab between two words separates them just like a space.")
@pytest.mark.points(1)
def test_a_tab_between_words(submission):
    expect_result(submission.solve, ("left\tright", 1, 0), ["left", "right"])
    expect_result(submission.solve, ("a\tb c", 2, 1), ["a b", "b c"])


@pytest.mark.rule("A text made only of tabs, line breaks and spaces has no words and gives [].")
@pytest.mark.points(1)
def test_only_tabs_line_breaks_and_spaces(submission):
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
def test_neighbours_share_overlap_words(submission):
    send_ahead(submission, "solve", OVERLAPPING_CALLS)
    for text, size, overlap in OVERLAPPING_CALLS:
        given_text = call_text(submission.solve, (text, size, overlap))
        chunks = result_of(submission.solve, text, size, overlap)
        expect(
            isinstance(chunks, list) and all(isinstance(c, str) for c in chunks),
            given=given_text,
            expected="a list of strings",
            got=chunks,
        )
        for k, (this, after) in enumerate(pairwise(chunks)):
            shared = this.split()[len(this.split()) - overlap :]
            expect(
                after.split()[:overlap] == shared,
                given=given_text,
                expected=(
                    f"chunk {k + 1} to start with the last {overlap} words of chunk {k}, "
                    f"{shorten(' '.join(shared), 60)}"
                ),
                got=[this, after],
            )


RANDOM_CALLS = DrawnCases("chunklab.suites.word_chunk.hidden_inputs:valid_calls", 30)


@pytest.mark.rule(
    "For any text, size and overlap, the chunks are exactly the windows of size words, "
    "each starting size - overlap words after the one before, "
    "up to the chunk holding the last word."
)
@pytest.mark.points(3)
def test_random_texts_give_exactly_the_word_windows(submission, reference):
    send_ahead(submission, "solve", RANDOM_CALLS)
    expect_for_all(
        RANDOM_CALLS,
        lambda call: expect_result(submission.solve, call, reference.solve(*call)),
    )
