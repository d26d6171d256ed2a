"""The vocabulary grader suites are written in.

A check that fails raises `RuleBroken`, whose message is the student's
feedback: the call that was made, what was expected and what came back.
The rule itself comes from the test's `rule` marker, so messages do not
repeat it. Values are compared by type as well as by value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chunklab.running.call_errors import NOT_THE_SUBMISSIONS_ANSWER

MAX_SHOWN = 240


class RuleBroken(AssertionError):
    """A grader check failed; the message is written for the student."""


def shorten(value: Any, limit: int = MAX_SHOWN) -> str:
    """`repr` of a value, cut in the middle when long."""
    text = repr(value)
    if len(text) <= limit:
        return text
    keep = (limit - 5) // 2
    return f"{text[:keep]} ... {text[-keep:]}"


def call_text(fn: Callable[..., Any], args: tuple, kwargs: dict | None = None) -> str:
    """How a call looks in feedback: `chunk('abc', 2, 1)`."""
    name = getattr(fn, "__name__", "function")
    shown = [shorten(a, 120) for a in args]
    shown += [f"{k}={shorten(v, 120)}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(shown)})"


def same_value(actual: Any, expected: Any) -> bool:
    """Equal, and of exactly the same plain types all the way down."""
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(map(same_value, actual, expected))
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            same_value(actual[k], expected[k]) for k in expected
        )
    return actual == expected


def result_of(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call the submission; an exception it raises becomes feedback."""
    try:
        return fn(*args, **kwargs)
    except NOT_THE_SUBMISSIONS_ANSWER:
        raise
    except Exception as exc:
        raise RuleBroken(
            f"Input: {call_text(fn, args, kwargs)}\n"
            f"It raised {type(exc).__name__}: {shorten(str(exc), 160)}"
        ) from None


def expect_result(fn: Callable[..., Any], args: tuple, expected: Any, **kwargs: Any) -> Any:
    """Call the submission and require exactly `expected` back."""
    actual = result_of(fn, *args, **kwargs)
    if not same_value(actual, expected):
        raise RuleBroken(
            f"Input: {call_text(fn, args, kwargs)}\n"
            f"Expected: {shorten(expected)}\n"
            f"Got: {shorten(actual)}{type_note(actual, expected)}"
        )
    return actual


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
        raise RuleBroken(
            f"Input: {call_text(fn, args, kwargs)}\n"
            f"Expected: {error.__name__} to be raised\n"
            f"Got: {type(exc).__name__}: {shorten(str(exc), 160)}"
        ) from None
    raise RuleBroken(
        f"Input: {call_text(fn, args, kwargs)}\n"
        f"Expected: {error.__name__} to be raised\n"
        f"Got: it returned {shorten(actual)}"
    )


def expect(condition: bool, *, given: str, expected: str, got: Any) -> None:
    """A property check: `given` names the input, `expected` says what should hold."""
    if not condition:
        raise RuleBroken(f"Input: {given}\nExpected: {expected}\nGot: {shorten(got)}")


def type_note(actual: Any, expected: Any) -> str:
    if type(actual) is type(expected):
        return ""
    # A value that is not plain data arrives as a stand-in that knows its type's name.
    actual_type = getattr(actual, "type_name", type(actual).__name__)
    return f" (a {actual_type}, not a {type(expected).__name__})"


def property_settings(max_examples: int = 4):  # -> hypothesis.settings
    """Hypothesis settings for grader property tests: seeded, bounded, quiet.

    A grading run must give the same score every time and stay fast, so the
    examples are derived from the test itself (derandomize) and few; property
    tests draw a list of cases per example, so few examples still try many
    inputs. One failure is reported, never a group, so feedback names a single
    input; the "explain" phase, which would call the submission many more
    times for notes no student sees, is left out.
    """
    from hypothesis import HealthCheck, Phase, settings

    return settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=False,
        report_multiple_bugs=False,
        phases=[phase for phase in Phase if phase is not Phase.explain],
        suppress_health_check=list(HealthCheck),
    )
