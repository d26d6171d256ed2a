"""What the grading side and the worker agree on, at the bottom of the package.

The code cells a submission is run as, the errors a call into it can end
with besides the submission's own exceptions, answers known right by their
digest (`KnownAnswer`), and the `Backend` every proxy talks to. The sandbox
and the suite runner both build on this module; it imports nothing of theirs
(a test keeps the package's imports free of cycles).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CodeCell:
    index: int
    # How the cell is named in tracebacks and messages: "submission.py" or "cell 3".
    label: str
    source: str

    def to_message(self) -> dict[str, object]:
        return {"index": self.index, "label": self.label, "source": self.source}


@dataclass(frozen=True, eq=False)
class KnownAnswer:
    """An answer already judged right, kept as the line a worker sends for it (`{"ok": ...}`)
    rather than as objects: a digest is all it is compared by, and a long document's
    answer takes a few times less memory so."""

    line: bytes


def answer_bytes(value: Any) -> bytes:
    """The line a worker sends for an answer of `value` (what its digest is made of);
    TypeError, ValueError or RecursionError for what is not plain data."""
    return json.dumps({"ok": value}).encode()


def known_answer(value: Any) -> KnownAnswer | None:
    """`value` kept as a `KnownAnswer`; None for what is not plain data, as JSON carries it
    (a stand-in for what a worker could not send is no answer to compare with)."""
    try:
        return KnownAnswer(answer_bytes(value))
    except (TypeError, ValueError, RecursionError):
        return None


class CallTimedOut(Exception):
    """A call into the submission ran past its time limit."""


class MemoryRunaway(CallTimedOut):
    """A call stopped because its memory grew steadily enough to pass the limit in time."""


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
        """Answers to several calls in order, up to one that timed out or ended the worker."""
        outcomes: list[dict[str, Any] | Exception] = []
        for message in messages:
            try:
                outcomes.append(self.request(message))
            except (CallTimedOut, WorkerCrashed) as error:
                outcomes.append(error)
                break
        return outcomes

    def cap_next_call(self, seconds: float) -> None:
        """The next call's own time is at most `seconds`: the test needs to know no more
        than whether it finishes within them. A backend without limits has none to lower."""

    def begin_test(self, stated_seconds: float | None = None) -> None:
        """A new grader test starts, stating its calls' own limit or not."""
