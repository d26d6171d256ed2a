"""Long documents for the checks that every lesson's code copes with one: RAG documents are long.

A million characters is far more than any other check sends, so code whose work
grows with the square of the text (slicing off the rest of the text at every
step, searching the text from its start for every chunk) or that recurses once
per chunk fails here and nowhere else.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import TypeVar

from chunklab.suites.checks import Lazy, RuleBroken, call_text, expect_same, result_of

T = TypeVar("T")

# The time a long document may take, stated in each lesson's rule; well above what a
# plain loop needs (a few hundredths of a second) and far below what quadratic work needs.
LONG_TEXT_SECONDS = 2.0

WORDS = (
    "retrieval chunk the a document long of manual vector index fact question answer "
    "model prompt search passage Mr. e.g. résumé naïve 3.14 RAG overlap window"
).split()
GAPS = (" ", " ", " ", " ", " ", "\n", ". ", "! ", "? ", "\t", ", ", "; ", ": ", ".\n\n")


@cache
def long_text(length: int) -> str:
    """The same text of `length` characters every time: words, sentence ends, all kinds of gaps."""
    draw = random.Random(length)
    parts: list[str] = []
    total = 0
    while total < length:
        piece = draw.choice(WORDS) + draw.choice(GAPS)
        parts.append(piece)
        total += len(piece)
    return "".join(parts)[:length]


def expect_within(seconds: float, check: Callable[[], object], *, given: str | Lazy) -> None:
    """Run `check` (which calls the submission and judges its answer) within `seconds`."""
    expect_right_in_time(seconds, check, lambda _: None, given=given)


def expect_right_in_time(
    seconds: float, answer: Callable[[], T], judge: Callable[[T], None], *, given: str | Lazy
) -> None:
    """`answer()` (a call into the submission) must be judged right; its time is the engine's.

    The time is not measured here: the test states `seconds` as its calls' own
    limit (`@pytest.mark.call_seconds`), which the sandbox keeps by the worker's own
    CPU time, so a busy grading machine slows no right answer into a failure,
    while work that grows with the square of the text runs out of time, as a
    timeout naming its input. A wrong answer that came in time says so, so the
    feedback never leaves it open whether the time or the answer is the problem.
    """
    value = answer()
    try:
        judge(value)
    except RuleBroken as wrong:
        raise RuleBroken(
            f"{wrong}\nThe answer is wrong; the time is not the problem (it came within "
            f"{seconds:g} seconds).",
            raised=wrong.raised,
        ) from None


@cache
def reference_answer(fn: Callable[..., T], args: tuple) -> T:
    """The reference's answer to a long call, worked out once per grading process."""
    return fn(*args)


def expecting(fn: Callable[..., T], expected: T) -> Callable[..., T]:
    """`fn`, called so that an answer equal to `expected` does not cross from the worker.

    Only a digest of a right answer comes back, and `expected` itself stands for
    it; any other answer comes back whole and is judged as usual. A function that
    is not a call into a worker is `fn` itself.
    """
    ask = getattr(fn, "expecting", None)
    return fn if ask is None else ask(expected)


def expect_answer_in_time(fn: Callable[..., T], args: tuple, expected: T) -> None:
    """`fn(*args)` must give exactly `expected` within LONG_TEXT_SECONDS.

    A wrong answer is shown by its first differing chunk (see `expect_result`).
    """

    # Written out only for feedback: the text is a million characters.
    given = Lazy(lambda: call_text(fn, args))
    expect_right_in_time(
        LONG_TEXT_SECONDS,
        lambda: result_of(expecting(fn, expected), args),
        lambda actual: same_or_shown(actual, expected, given),
        given=given,
    )


def same_or_shown(actual: T, expected: T, given: Lazy) -> None:
    # `expected` itself comes back when the worker's digest matched it.
    if actual is not expected:
        expect_same(actual, expected, given=str(given))
