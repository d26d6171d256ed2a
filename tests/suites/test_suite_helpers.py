"""The vocabulary suites are written in: calls ahead with their answers, lists of strings."""

from __future__ import annotations

from typing import Any

import pytest

from chunklab.contract import Backend
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites import checks
from chunklab.suites.checks import (
    RuleBroken,
    answers,
    expect_list_of_strings,
    expect_same,
    list_of_strings,
    same_as_reference,
    send_ahead,
)


class HalvingBackend(Backend):
    """A submission whose `halves(text)` splits a text in two; `halves("")` raises.

    Notes each message that reaches the worker, with the calls it carries.
    """

    def __init__(self) -> None:
        self.messages: list[list[list[Any]]] = []

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        (text,) = message["args"]
        if not text:
            return {"raised": {"type": "ValueError", "builtin": "ValueError", "message": "empty"}}
        middle = len(text) // 2
        return {"ok": [text[:middle], text[middle:]]}

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.messages.append([message["args"]])
        return self.answer(message)

    def request_many(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        self.messages.append([message["args"] for message in messages])
        return [self.answer(message) for message in messages]


def test_answers_sends_the_calls_together_and_gives_each_with_its_answer():
    backend = HalvingBackend()
    got = list(answers(SubmissionProxy(backend), "halves", [("abcd",), ("xyz",)]))
    assert got == [(("abcd",), ["ab", "cd"]), (("xyz",), ["x", "yz"])]
    assert backend.messages == [[["abcd"], ["xyz"]]]


def test_answers_stops_at_an_exception_with_its_input_named():
    backend = HalvingBackend()
    seen = []
    with pytest.raises(RuleBroken) as caught:
        for call, answer in answers(SubmissionProxy(backend), "halves", [("ab",), ("",), ("cd",)]):
            seen.append((call, answer))
    assert seen == [(("ab",), ["a", "b"])]
    assert str(caught.value) == "Input: halves('')\nIt raised ValueError: 'empty'"
    assert caught.value.raised
    # The call after it was answered ahead, and never made again.
    assert backend.messages == [[["ab"], [""], ["cd"]]]


def test_send_ahead_gives_back_the_calls_it_sent_in_order():
    backend = HalvingBackend()
    drawn = iter([("ab",), ("cde",)])  # drawn inputs come as an iterable, read once
    assert send_ahead(SubmissionProxy(backend), "halves", drawn) == [("ab",), ("cde",)]
    assert backend.messages == [[["ab"], ["cde"]]]


def test_same_as_reference_names_the_first_call_that_differs():
    class Reference:
        @staticmethod
        def halves(text: str) -> list[str]:
            return [text[:1], text[1:]]

    proxy = SubmissionProxy(HalvingBackend())
    same_as_reference(proxy, Reference, "halves", [("ab",)])
    with pytest.raises(RuleBroken) as caught:
        same_as_reference(proxy, Reference, "halves", [("ab",), ("abcd",)])
    assert str(caught.value) == ("Input: halves('abcd')\nExpected: ['a', 'bcd']\nGot: ['ab', 'cd']")


class Text(str):
    """A str subclass: a string all the same."""


@pytest.mark.parametrize("value", [[], ["a", "b"], ["a", Text("b")]])
def test_a_list_of_strings_is_given_back_as_it_is(value):
    assert expect_list_of_strings(value, given="f()") is value


@pytest.mark.parametrize(
    ("value", "got"),
    [(("a", "b"), "('a', 'b')"), (["a", ["b"]], "['a', ['b']]"), ("ab", "'ab'"), (None, "None")],
)
def test_anything_else_shows_the_whole_answer(value, got):
    with pytest.raises(RuleBroken) as caught:
        expect_list_of_strings(value, given="f(1)")
    assert str(caught.value) == f"Input: f(1)\nExpected: a list of strings\nGot: {got}"
    assert not caught.value.raised


def test_with_an_item_name_the_first_item_that_is_not_a_string_is_shown():
    with pytest.raises(RuleBroken) as caught:
        expect_list_of_strings(["a", 2, None], given="f(1)", expected="a list of str", item="chunk")
    assert str(caught.value) == "Input: f(1)\nExpected: chunk 1 to be a str\nGot: 2"
    with pytest.raises(RuleBroken) as caught:
        expect_list_of_strings(("a",), given="f(1)", expected="a list of str", item="chunk")
    assert str(caught.value) == "Input: f(1)\nExpected: a list of str\nGot: ('a',)"


def test_list_of_strings_calls_with_a_tuple_of_arguments():
    def pieces(text: str, size: int) -> Any:
        return tuple(text[i : i + size] for i in range(0, len(text), size))

    with pytest.raises(RuleBroken) as caught:
        list_of_strings(pieces, ("abc", 2))
    assert str(caught.value) == (
        "Input: pieces('abc', 2)\nExpected: a list of strings\nGot: ('ab', 'c')"
    )


@pytest.mark.parametrize(
    ("actual", "expected", "note"),
    [
        # Look-alikes: they show the same, so the code points are named.
        (
            ["D\n\u212b"],
            ["D\n\u00c5"],
            "At character 2 of chunk 0 there is U+212B (ANGSTROM SIGN), "
            "where U+00C5 (LATIN CAPITAL LETTER A WITH RING ABOVE) was expected.",
        ),
        # An accent written as its own character, left out.
        (
            ["Cafe"],
            ["Cafe\u0301"],
            "At character 4 of chunk 0 there is nothing, "
            "where U+0301 (COMBINING ACUTE ACCENT) was expected.",
        ),
        (
            ["Cafe\u0301"],
            ["Cafe"],
            "At character 4 of chunk 0 there is U+0301 (COMBINING ACUTE ACCENT), "
            "where the text should end.",
        ),
        (
            [{"text": "e\u0301"}],
            [{"text": "\u00e9"}],
            "At character 0 of chunk 0['text'] there is U+0065 (LATIN SMALL LETTER E), "
            "where U+00E9 (LATIN SMALL LETTER E WITH ACUTE) was expected.",
        ),
    ],
)
def test_a_difference_in_a_character_beyond_ascii_is_named(actual, expected, note):
    with pytest.raises(RuleBroken) as caught:
        expect_same(actual, expected, given="f()")
    assert str(caught.value).endswith("\n" + note)


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (["abc"], ["abd"]),
        # Shown escaped already: a zero-width space, a line separator.
        (["ab"], ["a\u200bb"]),
        (["a b"], ["a\u2028b"]),
    ],
)
def test_a_difference_that_shows_is_left_to_what_is_shown(actual, expected):
    with pytest.raises(RuleBroken) as caught:
        expect_same(actual, expected, given="f()")
    assert str(caught.value) == f"Input: f()\nExpected: {expected!r}\nGot: {actual!r}"


def test_a_long_answer_names_the_character_after_its_first_differing_chunk():
    expected = [f"chunk{k:03d}" for k in range(100)]
    actual = [*expected[:50], "\u0441hunk050", *expected[51:]]
    with pytest.raises(RuleBroken) as caught:
        expect_same(actual, expected, given="f()")
    message = str(caught.value)
    assert "Chunks 0 to 49 are right; chunk 50 is the first that differs." in message
    assert message.endswith(
        "At character 0 of chunk 50 there is U+0441 (CYRILLIC SMALL LETTER ES), "
        "where U+0063 (LATIN SMALL LETTER C) was expected."
    )


def test_the_first_differing_chunk_of_a_long_answer_is_found_without_a_step_per_chunk(
    monkeypatch,
):
    expected = [f"chunk{k:03d}" for k in range(300)]
    actual = [*expected[:250], "\u0441hunk250", *expected[251:260]]
    compared: list[object] = []
    for name in ("same_value", "first_string_difference"):
        real = getattr(checks, name)
        monkeypatch.setattr(
            checks, name, lambda *args, real=real: compared.append(args) or real(*args)
        )
    with pytest.raises(RuleBroken) as caught:
        expect_same(actual, expected, given="f()")
    message = str(caught.value)
    assert "Expected: 300 chunks; chunk 250 is 'chunk250'\nGot: 260 chunks; chunk 250 is" in message
    assert "Chunks 0 to 249 are right; chunk 250 is the first that differs." in message
    assert message.endswith(
        "At character 0 of chunk 250 there is U+0441 (CYRILLIC SMALL LETTER ES), "
        "where U+0063 (LATIN SMALL LETTER C) was expected."
    )
    # Only the whole answers and the one differing chunk, not each chunk in turn.
    assert len(compared) < 10


def failing_on(cases: set[int], log: list[str], name: str):
    """A check that fails on `cases`, noting each case it is given as `name:case`."""

    def check(case: int) -> None:
        log.append(f"{name}:{case}")
        if case in cases:
            raise RuleBroken(f"{name} broke on {case}")

    return check


def test_for_all_shows_the_shortest_of_the_first_failures():
    log: list[str] = []
    with pytest.raises(RuleBroken, match="^shared broke on 3$"):
        checks.expect_for_all(
            [9, 7, 3, 8, 6, 5, 1],
            failing_on({9, 7, 3, 8, 6, 5, 1}, log, "shared"),
            size=lambda case: case,
        )
    # The first five failures only: 1, shorter, comes after them.
    assert log == ["shared:9", "shared:7", "shared:3", "shared:8", "shared:6"]


def test_a_failure_with_a_shared_object_counts_only_when_the_case_fails_alone_too():
    log: list[str] = []
    checks.expect_for_all(
        [1, 2, 3],
        failing_on({2, 3}, log, "shared"),
        alone=failing_on(set(), log, "alone"),
    )
    assert log == ["shared:1", "shared:2", "shared:3", "alone:2", "alone:3"]


def test_a_case_that_fails_alone_shows_its_failure_alone():
    log: list[str] = []
    with pytest.raises(RuleBroken, match="^alone broke on 4$"):
        checks.expect_for_all(
            [6, 4, 5],
            failing_on({6, 4}, log, "shared"),
            size=lambda case: case,
            alone=failing_on({4}, log, "alone"),
        )
    assert log == ["shared:6", "shared:4", "shared:5", "alone:6", "alone:4"]


def test_cases_wait_to_be_checked_alone_until_enough_have_failed():
    # Checked alone in groups of `enough` (the calls of later cases, sent ahead, keep
    # their order); the cases stop once `enough` have failed alone.
    log: list[str] = []
    with pytest.raises(RuleBroken, match="^alone broke on 3$"):
        checks.expect_for_all(
            [1, 2, 3, 4, 5, 6],
            failing_on({1, 2, 3, 4, 5, 6}, log, "shared"),
            enough=2,
            size=lambda case: -case,
            alone=failing_on({2, 3, 4}, log, "alone"),
        )
    assert log == ["shared:1", "shared:2", "alone:1", "alone:2", "shared:3", "alone:3"]
