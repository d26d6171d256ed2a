"""What the grading side and the worker agree on, at the bottom of the package.

The code cells a submission is run as, the errors a call into it can end
with besides the submission's own exceptions, the bytes an answer's digest is
made of, and the `Backend` every proxy talks to. The sandbox
and the suite runner both build on this module; it imports nothing of theirs
(a test keeps the package's imports free of cycles).
"""

from __future__ import annotations

import marshal
import math
from dataclasses import dataclass
from itertools import chain
from typing import Any


@dataclass(frozen=True)
class CodeCell:
    index: int
    # How the cell is named in tracebacks and messages: "submission.py" or "cell 3".
    label: str
    source: str

    def to_message(self) -> dict[str, object]:
        return {"index": self.index, "label": self.label, "source": self.source}


# What an answer's digest is made of: its value written by `marshal` in this format, which
# writes every value of an exact builtin type in full (no back-references, no mark of an
# interned string), so equal values give equal bytes, and refuses every other type (a
# subclass of str or list, any object). The worker writes the same (worker_main.py).
DIGEST_FORMAT = 2
# Plain data: what JSON carries exactly, and all a digest is ever compared with.
PLAIN_SCALARS = (str, int, float, bool, type(None))
PLAIN_KINDS = {*PLAIN_SCALARS, list, dict}
MOST_PLAIN_DEPTH = 60
# More values in one level of nesting than a digest is made of: such a value is compared
# as itself instead (a long document's answer holds some 75,000 values in its widest level).
MOST_PLAIN_ITEMS = 2_000_000


def is_plain(value: Any) -> bool:
    """Whether `value` is plain data: str, int, finite float, bool, None, and lists and
    dicts with str keys of them, of these exact types, nested at most MOST_PLAIN_DEPTH deep
    and at most MOST_PLAIN_ITEMS wide.

    Looked at a level of nesting at a time, each level's types found at C speed: a long
    document's answer is some fifteen thousand chunk dicts.
    """
    level, depth = [value], 0
    while level:
        kinds = set(map(type, level))
        if not kinds <= PLAIN_KINDS:
            return False
        if float in kinds and not all(map(math.isfinite, of_type(level, kinds, float))):
            return False
        lists, dicts = of_type(level, kinds, list), of_type(level, kinds, dict)
        if (lists or dicts) and depth >= MOST_PLAIN_DEPTH:
            return False
        if dicts and not set(map(type, chain.from_iterable(dicts))) <= {str}:
            return False
        if sum(map(len, lists)) + sum(map(len, dicts)) > MOST_PLAIN_ITEMS:
            return False  # only a value holding the same list many times over is this wide
        level = [*chain.from_iterable(lists), *chain.from_iterable(map(dict.values, dicts))]
        depth += 1
    return True


def of_type(level: list[Any], kinds: set[type], kind: type) -> list[Any]:
    """The values of `level` whose type is exactly `kind` (`kinds`: the level's types)."""
    if kind not in kinds:
        return []
    return level if len(kinds) == 1 else [item for item in level if type(item) is kind]


def answer_bytes(value: Any) -> bytes:
    """The bytes a digest of an answer of `value` is made of; ValueError for what is not
    plain data (no answer a worker digests can equal it)."""
    if not is_plain(value):
        raise ValueError("not plain data")
    return marshal.dumps(value, DIGEST_FORMAT)


class CallTimedOut(Exception):
    """A call into the submission ran past its time limit."""


class MemoryRunaway(CallTimedOut):
    """A call stopped because its memory grew steadily enough to pass the limit in time."""


class CallWaited(CallTimedOut):
    """A call stopped by its wall-clock ceiling before its own time: the code waited."""


class SubmissionTimeSpent(CallTimedOut):
    """A call not made: the submission's whole time was spent before it."""


class WorkerCrashed(Exception):
    """The process running the submission ended during a call."""


class ProtocolBroken(WorkerCrashed):
    """The worker sent an answer of a shape it never sends: the submission wrote it."""


class SubmissionRaised(Exception):
    """The submission raised an exception that no builtin `Exception` type can stand for
    (`SystemExit`, a subclass of `BaseException`): `type_name` is its type's name."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name


def raised_name(error: BaseException) -> str:
    """The name of the submission's exception type that `error` stands for."""
    return error.type_name if isinstance(error, SubmissionRaised) else type(error).__name__


# Grader checks must let these through: they are outcomes of their own (timeout, error).
NOT_THE_SUBMISSIONS_ANSWER = (CallTimedOut, WorkerCrashed)


class Backend:
    """Where a submission runs, as the proxy sees it: requests in, answers out.

    `request` is the one method a backend must give; sending calls ahead and
    starting a test have plain defaults (one call after the other; nothing to
    forget), which the sandbox's backend replaces.
    """

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def request_many(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        """Answers to several calls in order, up to one that timed out or ended the worker.

        What such an error means for later calls (the test met a timeout, the
        worker broke the protocol) counts only once the test makes that call
        (`met`): a test that stops first never made it.
        """
        outcomes: list[dict[str, Any] | Exception] = []
        for message in messages:
            try:
                outcomes.append(self.request(message))
            except (CallTimedOut, WorkerCrashed) as error:
                outcomes.append(error)
                break
        return outcomes

    def request_tries(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        """Answers to the calls of the inputs to try, asked before any test, as `request_many`
        gives them. The sandbox's backend asks them in one request, made by a child of
        the worker, each call within a short limit of its own; a backend that keeps no
        submission apart (the kit's own tests) asks them where the tests run."""
        return self.request_many(messages)

    def met(self, error: Exception) -> None:
        """The test made a call sent ahead whose outcome was `error`: from now on it counts
        as if the call had been made alone. A backend without limits has nothing to note."""

    def cap_next_call(self, seconds: float) -> None:
        """The next call's own time is at most `seconds`: the test needs to know no more
        than whether it finishes within them. A backend without limits has none to lower."""

    def begin_test(self, stated_seconds: float | None = None) -> None:
        """A new grader test starts, stating its calls' own limit or not."""
