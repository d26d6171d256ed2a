"""Long documents, for the check every lesson makes that its code copes with one.

RAG documents are long. The kit's long document (200,000 characters, about 80
pages) is chunked correctly, with no recursion limit reached, and the work
grows in step with the text: the submission's own CPU time on the long text is
compared with its time on the text's first tenth. Linear work takes about ten
times as long, work that grows with the square of the text (slicing off or
searching the rest of the text, or rebuilding a list, at every chunk) about a
hundred times. A ratio, not a time, so the verdict holds on any machine and
under any load, and a correct linear solution many times slower than the
reference passes. Code that recurses once per chunk reaches the recursion
limit on the long text.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, TypeVar

from chunklab.contract import CallTimedOut, MemoryRunaway, SubmissionTimeSpent
from chunklab.kit_texts import DRAWS, LONG_LENGTH, SHORT_LENGTH, KitText, kit_text, text_name
from chunklab.suites.checks import (
    VERDICT_PREFIX,
    Lazy,
    RuleBroken,
    call_text,
    expect_same,
    result_of,
)

T = TypeVar("T")

# The own (CPU) time each call of a long-document check may take, stated in its
# `call_seconds` marker: a hundred times what a plain loop needs on the long text.
LONG_TEXT_SECONDS = 2.0
# How many times the short text's CPU time the long text's may take: "a few times ten".
# Linear code takes 7 to 17 times, measured in a worker; code whose work grows with the
# square, 40 to 100 (benchmarks/long_document_growth.py prints both).
MOST_GROWTH = 25.0
# Each length is timed up to this many times, each time on a text not given before; the
# least time of each length counts. Only code that seems to grow too fast is timed again,
# so a correct solution costs two calls.
TIMINGS = 3
# The draws of each length one check may time: the short text is timed once more. A test's
# checks each time texts of their own (`check`), so none is given a text an earlier check
# gave its code (a memo on a pipeline would answer it at once).
CHECK_DRAWS = {LONG_LENGTH: TIMINGS, SHORT_LENGTH: TIMINGS + 1}
MOST_CHECKS = min(DRAWS[length] // count for length, count in CHECK_DRAWS.items())
# A passing growth above this has its short call timed once more, the lesser time
# counting: one slow timing of the short call (a first call in a fresh worker takes up to
# half as long again) would otherwise hide growth past `MOST_GROWTH`.
RECHECKED_GROWTH = MOST_GROWTH / 2
# Growth past this at the first timings settles the verdict at once: no timing again.
# Linear code's one timing reached 30 under load (its least of three stays within 7 to
# 17), so a timing of linear code slowed by the machine is timed again; work that grows
# with the square of the text takes 40 to 180 times, and the most wasteful of it would
# otherwise run three times. A long call timed again is stopped at `MOST_GROWTH` times the
# least short timing: past that it cannot pass, so growing work pays little for it.
SETTLED_GROWTH = 3 * MOST_GROWTH

LONG_DOCUMENT_RULE = (
    "Documents in RAG are long: a text of 200,000 characters (about 80 pages) is chunked "
    "correctly with no recursion limit reached, and the work grows in step with the text: "
    "on a text ten times longer, your code may take a few times ten as long (its own CPU "
    "time), never the square."
)


def long_text(length: int = LONG_LENGTH, draw: int = 0) -> KitText:
    """The kit's long document (`LONG_LENGTH`), or its first `SHORT_LENGTH` characters;
    a later `draw` of it for a timing again."""
    return kit_text(text_name(length, draw))


# The short text (a tenth of the long one) may take this share of the long text's limit:
# linear code slower than that is stopped by the long text's limit anyway, and a call
# that never ends on it (a loop) is stopped a quarter of the way.
SHORT_SHARE = 0.25
# A long call stopped at `SETTLED_GROWTH` times the short call's own time grows too fast,
# whatever it would have given: it is not left to run to its whole limit. Never below
# `LEAST_CAP`, so that the clock's resolution never decides.
LEAST_CAP = 0.25
# The reference's answers to the long calls, by function and arguments. No other answer
# is kept for later submissions: a call's time includes sending an answer that is not the
# reference's, so an answer an earlier submission gave would change how fast this one's
# calls look (the pipeline's judge keeps the answers it found right, by their digests).
KEPT_ANSWERS: dict[tuple, Any] = {}


def call_key(fn: Callable[..., Any], args: tuple) -> tuple:
    # A document argument (a dict of str) is kept by its items.
    return (fn, *(tuple(sorted(a.items())) if isinstance(a, dict) else a for a in args))


def reference_answer(fn: Callable[..., T], args: tuple) -> T:
    """The reference's answer to a long call, worked out once per grading process."""
    key = call_key(fn, args)
    if key not in KEPT_ANSWERS:
        KEPT_ANSWERS[key] = fn(*args)
    answer: T = KEPT_ANSWERS[key]
    return answer


def expecting(fn: Callable[..., T], expected: T) -> Callable[..., T]:
    """`fn`, called so that an answer equal to `expected` does not cross from the worker.

    Only a digest of a right answer comes back, and `expected` itself stands for
    it; any other answer comes back whole and is judged as usual. A function that
    is not a call into a worker is `fn` itself.
    """
    ask = getattr(fn, "expecting", None)
    return fn if ask is None else ask(expected)


def measuring(
    fn: Callable[..., T], expected: T, most_seconds: float | None = None
) -> Callable[..., tuple[T, float | None]]:
    """`fn` as `expecting` calls it, giving also the CPU time each call took.

    A call into a worker is timed by the worker's CPU count, read from outside it
    (the submission cannot change it); any other function by this thread's. Into a
    worker, `most_seconds` lowers the call's own limit.
    """
    ask = getattr(fn, "measuring", None)
    if ask is not None:
        measured: Callable[..., tuple[T, float | None]] = ask(expected, most_seconds)
        return measured

    def timed(*args: Any) -> tuple[T, float | None]:
        started = time.thread_time()
        value = fn(*args)
        return value, time.thread_time() - started

    timed.__name__ = getattr(fn, "__name__", "function")
    return timed


# What code that is not made for long texts raises on one: calling itself once per chunk,
# or holding too much at once.
NAMED_ON_THE_LONG_TEXT = ("RecursionError", "MemoryError")


def expect_right_in_time(
    seconds: float, answer: Callable[[], T], judge: Callable[[T], None], *, given: str | Lazy
) -> T:
    """`answer()` (a call into the submission) must be judged right; its time is the engine's.

    The time is not measured here: the test states `seconds` as its calls' own
    limit (`@pytest.mark.call_seconds`), which the sandbox keeps by the worker's own
    CPU time, so a busy grading machine slows no right answer into a failure.
    A wrong answer that came in time says so, so the feedback never leaves it
    open whether the time or the answer is the problem.
    """
    try:
        value = answer()
    except RuleBroken as failed:
        if not failed.raised:
            raise
        # Only the classes this check is about are named: which class code raises is its
        # own choice, and a list of them would carry as many bits of what it was given.
        named = failed.exception if failed.exception in NAMED_ON_THE_LONG_TEXT else "an exception"
        raised = f"\n{VERDICT_PREFIX}your code raised {named} on the long text"
        if failed.exception == "RecursionError":
            raised += ": code that calls itself once per chunk reaches Python's recursion limit"
        raise RuleBroken(f"{failed}{raised}.", raised=True, exception=failed.exception) from None
    try:
        judge(value)
    except RuleBroken as wrong:
        in_time = (
            f"\n{VERDICT_PREFIX}the answer is wrong; the time is not the problem (it came "
            f"within {seconds:g} seconds)."
        )
        raise RuleBroken(
            f"{wrong}{in_time}",
            raised=wrong.raised,
            builds_on=wrong.builds_on,
            alone=f"{wrong.alone}{in_time}" if wrong.builds_on else "",
        ) from None
    return value


def expect_within(seconds: float, check: Callable[[], object], *, given: str | Lazy) -> None:
    """Run `check` (which calls the submission and judges its answer) within `seconds`."""
    expect_right_in_time(seconds, check, lambda _: None, given=given)


Judge = Callable[[tuple, Any, Lazy], None]


def same_as_expected(expected: Any) -> Judge:
    """The judge of a call whose one right answer is `expected`."""

    def judge(args: tuple, actual: Any, given: Lazy) -> None:
        # `expected` itself comes back when the worker's digest matched it.
        if actual is not expected:
            expect_same(actual, expected, given=str(given))

    return judge


def timed_right_answer(
    fn: Callable[..., Any],
    args: tuple,
    expected: Any,
    judge: Judge,
    most_seconds: float | None = None,
) -> float | None:
    """`fn(*args)` must give an answer `judge` finds right; the CPU time it took.

    `most_seconds` lowers the call's own limit.
    """
    given = Lazy(lambda: call_text(fn, args))  # made only for feedback: the text is long
    measured: list[float | None] = []

    def answer() -> Any:
        value, seconds = result_of(measuring(fn, expected, most_seconds), args)
        measured.append(seconds)
        return value

    def judged(value: Any) -> None:
        if value is not expected:  # the reference's answer itself: its digest matched
            judge(args, value, given)

    expect_right_in_time(LONG_TEXT_SECONDS, answer, judged, given=given)
    return measured[0]


def growth_cap(short_seconds: float | None, growth: float = SETTLED_GROWTH) -> float | None:
    """The own time the long call may take once the short one took `short_seconds`:
    stopped there, it grew past `growth`; None where the short call was not timed."""
    if short_seconds is None:
        return None
    return max(LEAST_CAP, growth * short_seconds)


def expect_long_document(
    fn: Callable[..., Any],
    args_of: Callable[[str], tuple],
    reference: Callable[..., Any],
    judge: Callable[[Any], Judge] = same_as_expected,
    again: Callable[[], Callable[..., Any]] | None = None,
    check: int = 0,
) -> None:
    """The long-document rule for the call `fn(*args_of(text))`.

    The answer on the long text, and on its first tenth, must be right: the
    reference's (`reference(*args)`), or one `judge(expected)` accepts. Then the
    CPU time on the long text may be at most `MOST_GROWTH` times that on the
    short one; the least of up to `TIMINGS` timings of each counts. Growth past
    `SETTLED_GROWTH` is not timed again; passing growth past `RECHECKED_GROWTH`
    has its short call timed once more. Every timing is of a text the code has not
    been given before (a draw of `kit_texts.DRAWS`), each judged against its own
    reference answer; the `check`-th check of a test draws texts no other one does.

    A long call timed again is stopped once it can no longer pass (see
    `passing_cap`), which ends the worker it ran in: `again()` gives the function
    to call in the next one (`fn` itself unless it is a method of an object that
    lived in the worker that ended).
    """
    if not 0 <= check < MOST_CHECKS:
        raise ValueError(f"a test makes at most {MOST_CHECKS} long-document checks")
    draws = {
        length: iter(range(check * count, (check + 1) * count))
        for length, count in CHECK_DRAWS.items()
    }
    # The function calls go to; None once the worker it lived in has ended, until a call
    # needs it (no worker is started for a check that ends there).
    calling: list[Callable[..., Any] | None] = [fn]

    def timing(length: int, most_seconds: float | None) -> float | None:
        args = args_of(long_text(length, next(draws[length])))
        expected = reference_answer(reference, args)
        call = calling[-1]
        if call is None:
            call = calling[-1] = fn if again is None else again()
        return timed_right_answer(call, args, expected, judge(expected), most_seconds)

    def short_timing() -> float | None:
        return timing(SHORT_LENGTH, SHORT_SHARE * LONG_TEXT_SECONDS)

    def timings() -> list[float | None]:
        # The short text first: past `SETTLED_GROWTH` times the short call's time, the
        # long call is stopped. A long call stopped at a limit gets the verdict of growth,
        # so code whose work grows with the square gets one verdict, whether a busy machine
        # let its long call finish in time or not.
        short = short_timing()
        return [timing(LONG_LENGTH, growth_cap(short)), short]

    def timings_again(least_short: float | None) -> list[float | None]:
        short = short_timing()
        cap = passing_cap(lower(least_short, short))
        if cap is None:
            return [timing(LONG_LENGTH, None), short]
        try:
            return [timing(LONG_LENGTH, cap), short]
        except (MemoryRunaway, SubmissionTimeSpent):
            raise
        except CallTimedOut:
            # Past the cap this timing cannot pass; the worker it ran in has ended.
            calling.append(None)
            return [math.inf, short]

    long_args = args_of(long_text(LONG_LENGTH, check * CHECK_DRAWS[LONG_LENGTH]))
    try:
        least = timings()
        if grows_in_step(least) and not grows_in_step(least, RECHECKED_GROWTH):
            least = [least[0], lower(least[1], short_timing())]
        if not grows_in_step(least, SETTLED_GROWTH):
            raise grows_too_fast(fn, long_args)
        for _ in range(TIMINGS - 1):
            if grows_in_step(least):
                break
            least = [lower(a, b) for a, b in zip(least, timings_again(least[1]), strict=True)]
    except (MemoryRunaway, SubmissionTimeSpent):
        raise
    except CallTimedOut:
        # A call stopped at the growth cap, at the long call's own limit or at the short
        # call's share of it: one verdict whichever it was, so how near a run's timings
        # came to one line or another never changes the outcome or the feedback.
        raise grows_too_fast(fn, long_args) from None
    if not grows_in_step(least):
        raise grows_too_fast(fn, long_args)


def passing_cap(least_short: float | None) -> float | None:
    """The own time past which a long call timed again cannot pass, whatever comes after:
    `MOST_GROWTH` times the least short timing so far (later ones can only be less).
    None where the short call was not timed, or where the cap is the call's own limit
    (a call stopped there settles the verdict)."""
    cap = growth_cap(least_short, MOST_GROWTH)
    return cap if cap is not None and cap < LONG_TEXT_SECONDS else None


def grows_too_fast(fn: Callable[..., Any], long_args: tuple) -> RuleBroken:
    return RuleBroken(
        f"Input: {call_text(fn, long_args)}, and the same with the text's first "
        f"{SHORT_LENGTH:,} characters\n"
        f"{VERDICT_PREFIX}on the text ten times longer, your code took far more than a few "
        "times ten as long (its own CPU time), or a call did not finish in time: its work grows "
        "faster than the text, or never ends. Look for work done again at every chunk "
        "on the whole text or the rest of it: slicing or searching it anew, splitting "
        "it again, or building a new list from the old one; or for a loop that never "
        "ends on this text."
    )


def grows_in_step(seconds: list[float | None], most: float = MOST_GROWTH) -> bool:
    """Whether the long text's time is at most `most` times the short text's."""
    long_seconds, short_seconds = seconds
    if long_seconds is None or short_seconds is None:
        return True  # a call that cannot be timed is judged by its answer alone
    return long_seconds <= most * max(short_seconds, 0.0)


def lower(first: float | None, second: float | None) -> float | None:
    """The lesser of two timings of one length (None: not timed)."""
    if first is None or second is None:
        return first if second is None else second
    return min(first, second)
