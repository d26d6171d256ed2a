"""Public checks of char_chunk: the worked examples and the basic rules."""

import pytest

from chunklab.suites.checks import expect_raises, expect_result, list_of_strings

pytestmark = pytest.mark.visibility("visible")


@pytest.mark.rule(
    "Each chunk is the window text[i:i+size]: i starts at 0 and moves forward by size - overlap."
)
@pytest.mark.points(1)
def test_windows_move_forward_by_size_minus_overlap(submission):
    # Starts 0, 3, 6: each chunk repeats the last character of the one before.
    expect_result(submission.chunk, ("abcdefgh", 4, 1), ["abcd", "defg", "gh"])
    expect_result(submission.chunk, ("abcdefghi", 3, 0), ["abc", "def", "ghi"])


@pytest.mark.rule(
    "Stop as soon as a window reaches the end of the text, so no tiny trailing scrap follows it."
)
@pytest.mark.points(1)
def test_stop_once_a_window_reaches_the_end(submission):
    # Without the stop, a last "g" (or "ef") would follow a window that already ends the text.
    expect_result(submission.chunk, ("abcdefg", 3, 1), ["abc", "cde", "efg"])
    expect_result(submission.chunk, ("abcdef", 4, 2), ["abcd", "cdef"])


@pytest.mark.rule("The last chunk holds what is left of the text, so it may be shorter than size.")
@pytest.mark.points(1)
def test_last_chunk_holds_what_is_left(submission):
    expect_result(submission.chunk, ("abcdefgh", 3, 1), ["abc", "cde", "efg", "gh"])
    expect_result(submission.chunk, ("hello world", 4, 0), ["hell", "o wo", "rld"])


@pytest.mark.rule("Empty text gives an empty list [].")
@pytest.mark.points(1)
def test_empty_text_gives_an_empty_list(submission):
    expect_result(submission.chunk, ("", 4, 1), [])


@pytest.mark.rule("A text no longer than size is one chunk: the whole text.")
@pytest.mark.points(1)
def test_a_text_no_longer_than_size_is_one_chunk(submission):
    expect_result(submission.chunk, ("hello", 10, 2), ["hello"])
    expect_result(submission.chunk, ("hello", 5, 4), ["hello"])


@pytest.mark.rule("A size of 0 or less raises ValueError.")
@pytest.mark.points(1)
def test_size_of_zero_or_less_raises(submission):
    expect_raises(submission.chunk, ("abcdef", 0, 0), ValueError)
    expect_raises(submission.chunk, ("abcdef", -2, 0), ValueError)


@pytest.mark.rule("A negative overlap raises ValueError.")
@pytest.mark.points(1)
def test_negative_overlap_raises(submission):
    expect_raises(submission.chunk, ("abcdef", 3, -1), ValueError)


@pytest.mark.rule(
    "An overlap equal to or larger than size raises ValueError: "
    "the window would never move forward."
)
@pytest.mark.points(1)
def test_overlap_not_smaller_than_size_raises(submission):
    expect_raises(submission.chunk, ("abcdef", 3, 3), ValueError)
    expect_raises(submission.chunk, ("abcdef", 3, 5), ValueError)


@pytest.mark.rule("chunk returns a list of strings, not a tuple or a generator.")
@pytest.mark.points(1)
def test_returns_a_list_of_strings(submission):
    # Only the type is checked here; the other checks look at the chunks themselves.
    for args in [("abcdef", 4, 1), ("", 4, 1)]:
        list_of_strings(submission.chunk, args)
