"""Public checks of word_chunk: the worked examples and the basic rules."""

import pytest

from chunklab.suites.checks import expect_result, list_of_strings

pytestmark = pytest.mark.visibility("visible")


@pytest.mark.rule(
    "A chunk is size consecutive words joined by single spaces, "
    "and the next chunk starts size - overlap words later."
)
@pytest.mark.points(1)
def test_worked_example_the_cat_sat_on_the_red_mat(submission):
    expect_result(
        submission.solve,
        ("the cat sat on the red mat", 4, 2),
        ["the cat sat on", "sat on the red", "the red mat"],
    )


@pytest.mark.rule("Stop once a chunk holds the last word: no chunk follows it.")
@pytest.mark.points(1)
def test_stop_once_a_chunk_holds_the_last_word(submission):
    # Going on would add "e" alone, a word the chunk before already holds.
    expect_result(submission.solve, ("a b c d e", 3, 1), ["a b c", "c d e"])


@pytest.mark.rule(
    "The last chunk holds the words that are left, so it may have fewer than size words."
)
@pytest.mark.points(1)
def test_last_chunk_holds_the_words_that_are_left(submission):
    expect_result(submission.solve, ("a b c d e", 2, 0), ["a b", "c d", "e"])


@pytest.mark.rule("A text with no words, empty or only spaces, gives an empty list [].")
@pytest.mark.points(1)
def test_a_text_with_no_words_gives_an_empty_list(submission):
    expect_result(submission.solve, ("  ", 2, 0), [])
    expect_result(submission.solve, ("", 3, 1), [])


@pytest.mark.rule(
    "Words are runs of non-whitespace characters: spaces, tabs and line breaks all separate words."
)
@pytest.mark.points(1)
def test_spaces_tabs_and_line_breaks_separate_words(submission):
    expect_result(submission.solve, ("a\tb\nc d", 2, 1), ["a b", "b c", "c d"])


@pytest.mark.rule("solve returns a list of strings: each chunk is one string, not a list of words.")
@pytest.mark.points(1)
def test_returns_a_list_of_strings(submission):
    # Only the type is checked here; the other checks look at the chunks themselves.
    for args in [("one two three", 2, 1), ("", 2, 1)]:
        list_of_strings(submission.solve, args)
