"""The text helpers every part of the kit cuts and escapes text with."""

import pytest

from chunklab.text import clip, clip_end, clip_middle, first_of, terminal_safe

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


@pytest.mark.parametrize("helper", [clip_end, clip_middle, first_of])
def test_a_text_within_the_limit_is_kept_whole(helper):
    assert helper(ALPHABET, 26) == ALPHABET


def test_clip_keeps_both_ends_and_says_how_much_is_left_out():
    mark = " ...[{left_out} characters left out]... "
    assert clip(ALPHABET, 10, head=3, tail=2, mark=mark) == "abc ...[21 characters left out]... yz"


def test_clip_end_ends_in_its_mark_within_the_limit():
    assert clip_end(ALPHABET, 10) == "abcdefg..."
    assert clip_end(ALPHABET, 10, mark=" ...[cut]") == "a ...[cut]"


def test_clip_middle_keeps_as_much_of_each_end():
    assert clip_middle(ALPHABET, 11) == "abcd … wxyz"
    assert len(clip_middle(ALPHABET, 12)) <= 12


def test_first_of_keeps_the_start_and_counts_the_rest():
    assert first_of(ALPHABET, 4) == "abcd ...[22 more characters not shown]"


def test_terminal_safe_escapes_what_does_not_show_as_itself():
    assert terminal_safe("plain text") == "plain text"
    assert terminal_safe("a\x1b[2Jb\u200bc\nd\u2028") == "a\\x1b[2Jb\\u200bc\\nd\\u2028"
