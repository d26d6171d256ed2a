"""The vocabulary grader suites are written in.

A check that fails raises `RuleBroken`, whose message is the student's
feedback: the call that was made, what was expected and what came back.
The rule itself comes from the test's `rule` marker, so messages do not
repeat it. Values are compared by type as well as by value.
"""

from __future__ import annotations

import builtins
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress, count, pairwise
from operator import ne
from typing import Any, NoReturn, TypeVar

import pytest

from chunklab.contract import NOT_THE_SUBMISSIONS_ANSWER, raised_name
from chunklab.text import terminal_safe

MAX_SHOWN = 240
# How a failure's offer of an input to try begins (see `tries`); the feedback policy looks
# for it, and the student bundle, which has no hidden check, has it here.
TRY_PREFIX = "Try: "
# How a hidden check's verdict that names no input begins (the long document's: a wrong
# answer, or growth past the limit): kept under the `rule` policy, as an offer to try is.
VERDICT_PREFIX = "Verdict: "
T = TypeVar("T")


class RuleBroken(pytest.fail.Exception):  # type: ignore[name-defined]  # set at run time
    """A grader check failed; the message is written for the student.

    A pytest failure without a traceback: the message is all the report needs,
    and pytest skips rendering a long traceback for every failed check.
    """

    def __init__(
        self,
        message: str,
        *,
        raised: bool = False,
        builds_on: str = "",
        alone: str = "",
        exception: str = "",
    ) -> None:
        super().__init__(message, pytrace=False)
        # The submission raised an exception rather than returning a wrong answer; its
        # class, as the kit names it (a builtin one), where the check knows it.
        self.raised = raised
        self.exception = exception
        # A hidden check's search for an input to try (see `tries.offering`), run once the
        # submission's tests are done.
        self.offer: Callable[[], str] | None = None
        # A check built on a basic rule that the input broke (see `building_on`): the rule,
        # and the basic check's own message, for when that rule's own tests all passed.
        self.builds_on = builds_on
        self.alone = alone

    def __str__(self) -> str:
        return self.msg


def shorten(value: Any, limit: int = MAX_SHOWN) -> str:
    """`repr` of a value, cut in the middle when long, with a marker saying how much is left out.

    Each value is shortened on its own length, never on another's: an expected
    value is not cut to the length of what came back.
    """
    keep = max(limit // 2 - 20, 10)
    if type(value) is list and len(value) > LONG_LIST:
        # A long answer's repr would be as large as the answer: its ends are made alone.
        length = repr_length(value)
        if length <= limit:
            return repr(value)
        head, tail = list_ends(value, keep)
        return f"{head} ...[{length - 2 * keep} characters left out]... {tail}"
    text = repr(value)
    if len(text) <= limit:
        return text
    left_out = len(text) - 2 * keep
    return f"{text[:keep]} ...[{left_out} characters left out]... {text[-keep:]}"


# Lists longer than this are shown without making their whole repr.
LONG_LIST = 64


def repr_length(items: list) -> int:
    """len(repr(items)) for a plain list, without making it."""
    return 2 + sum(map(len, map(repr, items))) + 2 * max(len(items) - 1, 0)


def shown_length(value: Any) -> int:
    """len(repr(value)), without making the repr of a long list."""
    if type(value) is list and len(value) > LONG_LIST:
        return repr_length(value)
    return len(repr(value))


def list_ends(items: list, keep: int) -> tuple[str, str]:
    """The first and the last `keep` characters of repr(items), made from as few items as need."""
    head = "["
    for item in items:
        head += repr(item) + ", "
        if len(head) >= keep:
            break
    tail = "]"
    for item in reversed(items):
        tail = ", " + repr(item) + tail
        if len(tail) >= keep:
            break
    return head[:keep], tail[-keep:]


def call_text(fn: Callable[..., Any], args: tuple, kwargs: dict | None = None) -> str:
    """How a call looks in feedback: `chunk('abc', 2, 1)`."""
    return named_call_text(getattr(fn, "__name__", "function"), args, kwargs)


def call_given(fn: Callable[..., Any], args: tuple, kwargs: dict | None = None) -> Lazy:
    """`call_text`, made only if a check fails: a call's text is mostly never shown."""
    return Lazy(lambda: call_text(fn, args, kwargs))


def named_call_text(name: str, args: tuple, kwargs: dict | None = None) -> str:
    """How a call of the function named `name` looks in feedback."""
    shown = [shorten(a, 120) for a in args]
    shown += [f"{k}={shorten(v, 120)}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(shown)})"


def only_strings(items: list[Any]) -> bool:
    """Every item is exactly a `str` (checked at C speed)."""
    return not items or set(map(type, items)) == {str}


def first_unequal(actual: list[str], expected: list[str]) -> int | None:
    """The first index at which two lists of str differ, found at C speed; None if none does
    up to the shorter one's end."""
    return next(compress(count(), map(ne, actual, expected)), None)


def both_strings(actual: Any, expected: Any) -> bool:
    """Two lists of exactly `str` items."""
    return (
        type(actual) is list
        and type(expected) is list
        and only_strings(actual)
        and only_strings(expected)
    )


def same_value(actual: Any, expected: Any) -> bool:
    """Equal, and of exactly the same plain types all the way down."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, list):
        if len(actual) != len(expected):
            return False
        if only_strings(expected):
            # The common answer, a list of strings: compared at C speed (a long
            # document's answer holds a hundred thousand chunks).
            return only_strings(actual) and actual == expected
        return all(map(same_value, actual, expected))
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            same_value(actual[k], expected[k]) for k in expected
        )
    return actual == expected


def result_of(fn: Callable[..., Any], args: tuple, **kwargs: Any) -> Any:
    """Call the submission, `fn(*args, **kwargs)`; an exception it raises becomes feedback."""
    try:
        return fn(*args, **kwargs)
    except NOT_THE_SUBMISSIONS_ANSWER:
        raise
    except Exception as exc:
        raise RuleBroken(
            f"Input: {call_text(fn, args, kwargs)}\n{what_it_raised(fn, exc)}",
            raised=True,
            exception=builtin_name(exc),
        ) from None


def builtin_name(exc: BaseException) -> str:
    """The name of the exception's class where it is one of Python's own; else "".

    A class of the submission's own may be named anything, inputs it kept included.
    """
    name = raised_name(exc)
    known = vars(builtins).get(name)
    return name if isinstance(known, type) and issubclass(known, BaseException) else ""


def what_it_raised(fn: Callable[..., Any], exc: Exception) -> str:
    if isinstance(exc, MemoryError):
        # A MemoryError says nothing by itself: say what happened, and the limit.
        limit = memory_limit_mb(fn)
        used = f"more than {limit} MB" if limit else "more memory than it may"
        return f"It ran out of memory: it used {used} (MemoryError)."
    # The class's name is the submission's choice: escaped, it starts no line of its own.
    return f"It raised {terminal_safe(raised_name(exc))}: {raised_message(exc)}"


def raised_message(exc: Exception) -> str:
    """What the submission's exception said, quoted once.

    An exception from the submission comes back rebuilt around the text of its
    `str()`. For a KeyError that text is already the quoted key, and `str()` of the
    rebuilt KeyError would quote it again, so it is shown as it came.
    """
    rebuilt = getattr(exc, "chunklab_call", None) is not None
    if rebuilt and len(exc.args) == 1 and isinstance(exc.args[0], str):
        message = exc.args[0]
    else:
        message = str(exc)
    if isinstance(exc, KeyError):
        message = terminal_safe(message)
        return message if len(message) <= 160 else f"{message[:140]} ...[cut]"
    return shorten(message, 160)


def memory_limit_mb(fn: Callable[..., Any]) -> int | None:
    """The memory limit of the worker behind a call into the submission, when one is known."""
    target = getattr(fn, "__wrapped__", fn)
    # A method of an object in the worker reaches the proxy through its instance.
    holder = getattr(target, "_instance", target)
    backend = getattr(getattr(holder, "_proxy", None), "_backend", None)
    return getattr(getattr(backend, "limits", None), "memory_mb", None)


def expect_result(fn: Callable[..., Any], args: tuple, expected: Any, **kwargs: Any) -> Any:
    """Call the submission and require exactly `expected` back."""
    actual = result_of(fn, args, **kwargs)
    expect_same(actual, expected, given=call_given(fn, args, kwargs))
    return actual


def expect_same(actual: Any, expected: Any, *, given: str | Lazy) -> None:
    """Require the answer to the call `given` to be exactly `expected`."""
    if same_value(actual, expected):
        return
    if too_long_to_show(actual, expected):
        raise RuleBroken(
            f"Input: {given}\n{first_difference(actual, expected)}"
            f"{character_difference(actual, expected)}"
        )
    raise RuleBroken(
        f"Input: {given}\n"
        f"Expected: {shorten(expected)}\n"
        f"Got: {shorten(actual)}{type_note(actual, expected)}"
        f"{type_difference(actual, expected)}{character_difference(actual, expected)}"
    )


def character_difference(actual: Any, expected: Any) -> str:
    """The first character that differs, named, when one of the two shows as a glyph beyond ASCII.

    `'Å'` (U+212B) and `'Å'` (U+00C5), or an accent written as its own character
    and one written with its letter, look the same when shown. Naming the code
    points says what the eye cannot.
    """
    found = first_string_difference(actual, expected, "")
    if found is None:
        return ""
    where, got, wanted = found
    at = next(
        (k for k, (a, e) in enumerate(zip(got, wanted, strict=False)) if a != e),
        min(len(got), len(wanted)),
    )
    got_char, wanted_char = got[at : at + 1], wanted[at : at + 1]
    # Characters that cannot be printed are shown escaped (\u200b) already.
    if not any(char.isprintable() and not char.isascii() for char in (got_char, wanted_char)):
        return ""
    place = f"character {at} of {where or 'the answer'}"
    if not got_char:
        return f"\nAt {place} there is nothing, where {character_name(wanted_char)} was expected."
    if not wanted_char:
        return f"\nAt {place} there is {character_name(got_char)}, where the text should end."
    return (
        f"\nAt {place} there is {character_name(got_char)}, "
        f"where {character_name(wanted_char)} was expected."
    )


def character_name(char: str) -> str:
    return f"U+{ord(char):04X} ({unicodedata.name(char, 'no name')})"


def first_string_difference(actual: Any, expected: Any, where: str) -> tuple[str, str, str] | None:
    """Where two values first hold strings that differ: (where, the answer's, the expected)."""
    if isinstance(actual, str) and isinstance(expected, str):
        return (where, actual, expected) if actual != expected else None
    if both_strings(actual, expected):
        # A long document's chunks: the first that differs is found at C speed.
        k = first_unequal(actual, expected)
        if k is None:
            return None
        return f"{where}[{k}]" if where else f"chunk {k}", actual[k], expected[k]
    if isinstance(actual, list) and isinstance(expected, list):
        for k, (a, e) in enumerate(zip(actual, expected, strict=False)):
            found = first_string_difference(a, e, f"{where}[{k}]" if where else f"chunk {k}")
            if found:
                return found
    if isinstance(actual, dict) and isinstance(expected, dict):
        for key in expected:
            if key in actual:
                found = first_string_difference(
                    actual[key], expected[key], f"{where}[{key!r}]" if where else repr(key)
                )
                if found:
                    return found
    return None


def too_long_to_show(actual: Any, expected: Any) -> bool:
    """Two lists at least one of which would be cut when shown whole."""
    if not (isinstance(actual, list) and isinstance(expected, list)):
        return False
    return shown_length(expected) > MAX_SHOWN or shown_length(actual) > MAX_SHOWN


def first_difference(actual: list, expected: list) -> str:
    """Where two long lists of chunks first differ, chunk against chunk, with both counts.

    Two long lists cut in the middle look alike; the first chunk that differs
    (and how many chunks each list has) says what went wrong.
    """
    if both_strings(actual, expected):
        found = first_unequal(actual, expected)
    else:
        found = next(
            (
                k
                for k, (a, e) in enumerate(zip(actual, expected, strict=False))
                if not same_value(a, e)
            ),
            None,
        )
    index = min(len(actual), len(expected)) if found is None else found

    def at(chunks: list) -> str:
        return (
            f"chunk {index} is {shorten(chunks[index])}"
            if index < len(chunks)
            else (f"there is no chunk {index}")
        )

    right = f"Chunks 0 to {index - 1} are right; c" if index else "C"
    note = ""
    if index < min(len(actual), len(expected)):
        note = type_difference(actual[index], expected[index]).replace(
            "the value", f"chunk {index}"
        )
    return (
        f"Expected: {len(expected)} chunks; {at(expected)}\n"
        f"Got: {len(actual)} chunks; {at(actual)}{note}\n"
        f"{right}hunk {index} is the first that differs."
    )


def expect_raises(
    fn: Callable[..., Any], args: tuple, error: type[Exception], **kwargs: Any
) -> None:
    """Require the call to raise `error` (or a subclass of it)."""
    try:
        actual = fn(*args, **kwargs)
    except NOT_THE_SUBMISSIONS_ANSWER:
        raise
    except error:
        return
    except Exception as exc:
        got = what_it_raised(fn, exc).removeprefix("It raised ")
        raise RuleBroken(
            f"Input: {call_text(fn, args, kwargs)}\n"
            f"Expected: {error.__name__} to be raised\n"
            f"Got: {got}"
        ) from None
    raise RuleBroken(
        f"Input: {call_text(fn, args, kwargs)}\n"
        f"Expected: {error.__name__} to be raised\n"
        f"Got: it returned {shorten(actual)}"
    )


class Lazy:
    """Feedback text made only if a check fails: in hot loops, making it costs more than a check."""

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make

    def __str__(self) -> str:
        return self.make()


def expect(condition: bool, *, given: str | Lazy, expected: str, got: Any) -> None:
    """A property check: `given` names the input, `expected` says what should hold."""
    if not condition:
        fail(given=given, expected=expected, got=got)


def fail(*, given: str | Lazy, expected: str, got: Any, before: Any = None) -> NoReturn:
    """A broken rule; in hot loops, test first and build the message only on failure.

    `before`, when given, is shown too: a chunk is often wrong because of where
    the chunk before it ended.
    """
    shown = f"\nThe chunk before it: {shorten(before)}" if before is not None else ""
    raise RuleBroken(f"Input: {given}\nExpected: {expected}\nGot: {shorten(got)}{shown}")


def building_on(rule: str, check: Callable[[], T]) -> T:
    """Run the check of a basic rule that another check builds on.

    When the basic rule is broken, the check built on it cannot tell anything
    new: it says which rule to fix first, under its own name, instead of
    repeating the basic rule's message. That is only true when the basic rule's
    own tests failed too: the grading plugin keeps the basic check's message
    (`alone`) for a run where they all passed, and shows it instead.
    """
    try:
        return check()
    except RuleBroken as broken:
        if broken.raised or broken.builds_on:
            raise  # an exception says more than "fix that rule first"
        first_line = str(broken).split("\n", 1)[0]
        raise RuleBroken(
            f"{first_line}\nNot checked: fix '{rule}' first.", builds_on=rule, alone=str(broken)
        ) from None


def type_name(value: Any) -> str:
    # A value that is not plain data arrives as a stand-in that knows its type's name.
    return getattr(value, "type_name", type(value).__name__)


def type_note(actual: Any, expected: Any) -> str:
    if type(actual) is type(expected):
        return ""
    return f" (a {type_name(actual)}, not a {type(expected).__name__})"


def type_difference(actual: Any, expected: Any) -> str:
    """Where two values that print alike differ in type: `1` and `True` look different, but
    a str subclass does not. Empty when the printed values already show the difference."""
    if shorten(actual) != shorten(expected) or type(actual) is not type(expected):
        return ""  # what prints already shows it, or `type_note` says it
    path = first_type_difference(actual, expected, "")
    if path is None:
        return ""
    where, got, wanted = path
    return f"\nThey print the same, but {where or 'the value'} is a {got}, not a {wanted}."


def first_type_difference(actual: Any, expected: Any, where: str) -> tuple[str, str, str] | None:
    if type(actual) is not type(expected):
        return where, type_name(actual), type(expected).__name__
    if isinstance(expected, list):
        for k, (a, e) in enumerate(zip(actual, expected, strict=False)):
            found = first_type_difference(a, e, f"{where or 'item'}[{k}]")
            if found:
                return found
    if isinstance(expected, dict):
        for key in expected:
            if key in actual:
                found = first_type_difference(actual[key], expected[key], f"{where}[{key!r}]")
                if found:
                    return found
    return None


def send_ahead(submission: Any, name: str, calls: Iterable[tuple]) -> list[tuple]:
    """Send the calls `name(*args)` a check is about to make to the submission together.

    Only a matter of speed: each call still happens where the check makes it,
    and gets the answer it would have got. Gives back the calls, in order, for
    the check to make: `for args in send_ahead(submission, "chunk", calls):`.
    """
    calls = list(calls)
    with submission.ahead() as later:
        for args in calls:
            getattr(later, name)(*args)
    return calls


def answers(submission: Any, name: str, calls: Iterable[tuple]) -> Iterator[tuple[tuple, Any]]:
    """Each call `name(*args)` with the submission's answer, the calls sent ahead together.

    `for args, chunks in answers(submission, "chunk", calls):` Each answer is got
    when the loop reaches its call, so a check that stops early makes no later
    call, and an exception the submission raised stops the loop there as
    feedback naming its input (see `result_of`).
    """
    fn = getattr(submission, name)
    for args in send_ahead(submission, name, calls):
        yield args, result_of(fn, args)


def expect_list_of_strings(
    value: Any,
    *,
    given: str | Lazy,
    expected: str = "a list of strings",
    item: str | None = None,
) -> list[str]:
    """Require an answer to be a list of strings, and give it back.

    The feedback says `expected` and shows the answer. With `item` (such as
    "chunk"), an item that is not a string is named and shown on its own
    ("chunk 2 to be a str") instead of the whole list.
    """
    if type(value) is list and only_strings(value):
        return value  # the common answer, passed at C speed
    if isinstance(value, list):
        wrong = next((k for k, v in enumerate(value) if not isinstance(v, str)), None)
        if wrong is None:
            return value
        if item is not None:
            fail(given=given, expected=f"{item} {wrong} to be a str", got=value[wrong])
    fail(given=given, expected=expected, got=value)


def list_of_strings(fn: Callable[..., Any], args: tuple) -> list[str]:
    """The submission's answer to `fn(*args)`, after checking it is a list of strings."""
    return expect_list_of_strings(result_of(fn, args), given=call_given(fn, args))


def expect_results(submission: Any, name: str, cases: Sequence[tuple[tuple, Any]]) -> None:
    """Each call `name(*args)` of `cases` must return exactly its expected answer, in
    turn; the calls are sent ahead together (see `send_ahead`)."""
    fn = getattr(submission, name)
    for args, (_, expected) in zip(
        send_ahead(submission, name, [args for args, _ in cases]), cases, strict=True
    ):
        expect_result(fn, args, expected)


def same_as_reference(submission: Any, reference: Any, name: str, calls: list[tuple]) -> None:
    """Each call's answer must be exactly the reference's: for the lessons with one answer."""
    fn = getattr(submission, name)
    for args, actual in answers(submission, name, calls):
        expect_same(actual, getattr(reference, name)(*args), given=call_given(fn, args))


def expect_overlaps_shared(
    chunks: list[str],
    overlap: int,
    given: str | Lazy,
    *,
    unit: str,
    pieces: Callable[[str], Sequence[str]],
    joined: Callable[[Sequence[str]], str],
) -> None:
    """Each chunk after the first starts with the last `overlap` units of the one before:
    `pieces` cuts a chunk into its units (characters or words), `joined` shows them."""
    for k, (this, after) in enumerate(pairwise(chunks)):
        units = pieces(this)
        shared = units[len(units) - overlap :]
        if pieces(after)[:overlap] != shared:
            fail(
                given=given,
                expected=f"chunk {k + 1} to start with the last {overlap} {unit} of chunk {k}, "
                f"{shorten(joined(shared), 60)}",
                got=[this, after],
            )


def expect_for_all(
    cases: Iterable[Any],
    check: Callable[[Any], None],
    *,
    size: Callable[[Any], int] = lambda case: len(repr(case)),
    enough: int = 5,
    alone: Callable[[Any], None] | None = None,
) -> None:
    """Run `check` on every case; report the smallest input among the first failures.

    Smaller inputs make clearer feedback, so of the first `enough` cases that
    break the rule, the one with the shortest input is the one shown.

    `alone` checks a case on its own, where `check` shares an object between
    cases (to make fewer calls): a case `check` fails counts only if it fails
    alone too, and its failure alone is the one shown. So the outcome is that
    of every case checked on its own, and a failure that comes from earlier
    calls (state kept between them) is left to the rule about such state.
    """
    broken: list[tuple[int, RuleBroken]] = []
    waiting: list[Any] = []  # failed with `check`, to be checked alone
    on_its_own = alone or check  # without `alone`, no case waits

    def check_waiting() -> None:
        for case in waiting:
            try:
                on_its_own(case)
            except RuleBroken as failure:
                broken.append((size(case), failure))
        waiting.clear()

    for case in cases:
        try:
            check(case)
        except RuleBroken as failure:
            if alone is None:
                broken.append((size(case), failure))
            else:
                waiting.append(case)
            if len(broken) + len(waiting) >= enough:
                # Checked alone only now: the calls of later cases, sent ahead, still
                # answer in the order they were made.
                check_waiting()
                if len(broken) >= enough:
                    break
    check_waiting()
    if broken:
        raise min(broken, key=lambda pair: pair[0])[1]
