"""One input of a rule checker, the answer code gives to it, and running the code in a time limit.

The code checked here is a survivor (a mutant that kept full marks) or the
reference, each in a process of its own (see `survivors`). A call that runs
past its CPU time is stopped by a timer signal and answers "ran too long".
"""

from __future__ import annotations

import copy
import gc
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chunklab.suites.checks import same_value, shorten

# CPU time one call on a small input may take: the references need microseconds.
CALL_SECONDS = 0.5
RAN_TOO_LONG = "ran too long"


@dataclass(frozen=True)
class Case:
    """An input: the call as a person would type it, and what the checker needs to make it."""

    call: str
    data: tuple


@dataclass(frozen=True)
class Answer:
    """What code did with a case: returned a value, raised (the exception's type) or ran too long.

    `changed` says whether the call changed its own input (a document, say).
    """

    outcome: str
    value: Any = None
    changed: bool = False

    def same_as(self, other: Answer) -> bool:
        return (
            self.outcome == other.outcome
            and self.changed == other.changed
            and same_value(self.value, other.value)
        )

    def shown(self) -> str:
        if self.outcome == "raised":
            return f"raises {self.value}"
        if self.outcome == RAN_TOO_LONG:
            return f"runs past {CALL_SECONDS:g} s of CPU time"
        return shown_value(self.value) + (" (and changes its input)" if self.changed else "")


class TooLong(BaseException):
    """Raised into code past its time: a BaseException, so `except Exception` lets it by."""


def stop(signum: int, frame: Any) -> None:
    raise TooLong


def answer_of(call: Callable[..., Any], *arguments: Any) -> Answer:
    """`call(*arguments)` within CALL_SECONDS of CPU time; whether it changed its arguments too.

    A call past its time is made once more after a garbage collection: the time a
    collection of everything kept so far takes is counted in the call it interrupts,
    and only code that runs too long twice has run too long.
    """
    for _ in range(2):
        # Strings and numbers cannot change; documents and lists of them are compared after.
        watched = any(isinstance(argument, (dict, list)) for argument in arguments)
        given = copy.deepcopy(arguments) if watched else arguments
        try:
            value = timed_call(call, given)
        except TooLong:
            gc.collect()
            continue
        except RecursionError:
            return Answer("raised", "RecursionError")
        except Exception as error:
            return Answer("raised", type(error).__name__)
        return Answer("returned", value, watched and not same_value(arguments, given))
    return Answer(RAN_TOO_LONG)


def timed_call(call: Callable[..., Any], arguments: tuple) -> Any:
    previous = signal.signal(signal.SIGPROF, stop)
    try:
        signal.setitimer(signal.ITIMER_PROF, CALL_SECONDS)
        try:
            return call(*arguments)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    finally:
        signal.signal(signal.SIGPROF, previous)


def shown_value(value: Any) -> str:
    """A returned value; a long list of chunks by its chunks' lengths, which say more."""
    text = shorten(value, 200)
    if "left out" in text and type(value) is list and all(type(v) is str for v in value):
        lengths = [len(chunk) for chunk in value]
        return f"{len(value)} chunks of these lengths: {shorten(lengths, 200)}"
    return text
