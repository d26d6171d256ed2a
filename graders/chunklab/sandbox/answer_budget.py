"""How much of a submission's answers the grading process may hold, checked before decoding.

A worker's answer is JSON that the submission could have written itself, so
the grading process never trusts its shape: before `json.loads`, a cheap
scan of the bytes bounds how deep the value is nested (deep nesting makes
the decoder recurse until it fails) and how large it will be once decoded
(`[{},{},...]` takes some twenty times its JSON size as Python objects).
The answers a submission sends during one test share one budget, those
sent ahead included: a test may keep every answer it was given (to compare
them, or in the frames of its failure) until it ends. Every check is a pass of bytes operations over
the answer, never a Python step per value.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from collections.abc import Callable
from typing import Any

# One answer's JSON, as read from the worker.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
# Everything decoded from one submission's answers during one test, estimated.
MAX_HELD_BYTES = 128 * 1024 * 1024
# The worker sends values nested at most 60 deep (deeper ones become stand-ins).
MAX_DEPTH = 100
# A decoded value costs at most about this much besides its text (a dict, a float,
# a short string, each with the list slot that holds it).
BYTES_PER_VALUE = 72

TOO_LARGE = f"Your code returned more than {MAX_ANSWER_BYTES // 2**20} MB of data in one answer."
TOO_DEEP = (
    f"Your code returned a value nested more than {MAX_DEPTH} levels deep; "
    "the grader does not read it."
)
# Kept of an answer to measure its nesting: quotes and brackets, braces as brackets
# (mismatched ones are not JSON: decoding fails anyway).
NOT_STRUCTURE = bytes(set(range(256)) - set(b'"[]{}'))
BRACES_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")


class AnswerRefused(Exception):
    """An answer the grading process will not decode; the message is for the student."""


def too_deep(brackets: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when these brackets nest deeper than `limit`, or do not match."""
    for _ in range(limit):
        if not brackets:
            return False
        # Each pass removes exactly the innermost level, however wide the value is.
        reduced = brackets.replace(b"[]", b"")
        if reduced == brackets:
            return True
        brackets = reduced
    return bool(brackets)


def nesting_too_deep(line: bytes) -> bool | None:
    """Whether the JSON nests deeper than MAX_DEPTH; None when only decoding can tell.

    Only bytes operations, whatever the size: escapes are dropped, then all but
    quotes and brackets; a string without brackets then shows as `""`, which
    is dropped too (two quotes in a row: every later quote keeps its parity).
    When no quote is left, the brackets are the structure's. Brackets inside
    strings could only make it look deeper or unmatched: then None.
    """
    compact = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    compact = compact.translate(BRACES_AS_BRACKETS, NOT_STRUCTURE)
    while b'""' in compact:
        compact = compact.replace(b'""', b"")
    deep = too_deep(compact.replace(b'"', b""))
    if b'"' not in compact or not deep:
        return deep
    return None


def decoded_estimate(line: bytes) -> int:
    """An upper estimate of the memory `json.loads(line)` takes.

    Every comma or opening bracket may start a value (a dict, a float, a short
    string), each costing at most BYTES_PER_VALUE besides its text.
    """
    if len(line) > MAX_ANSWER_BYTES:
        raise AnswerRefused(TOO_LARGE)
    values = line.count(b",") + line.count(b"[") + line.count(b"{") + 1
    return len(line) + BYTES_PER_VALUE * values


def depth_of(value: object) -> int:
    """How deep a decoded value nests, without recursion."""
    deepest, waiting = 0, [(value, 1)]
    while waiting:
        item, depth = waiting.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            waiting += [(child, depth + 1) for child in children]
    return deepest


# The scanner `json.loads` decodes with (set in the decoder's __init__), without its steps
# around it (finding the bytes' encoding, skipping whitespace): most of what decoding a
# short answer costs.
SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def decode_answer(line: bytes) -> object:
    """`json.loads`, for a line whose size was charged: nothing deeper than MAX_DEPTH."""
    if len(line) <= MAX_DEPTH or line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        # No deeper than it has opening brackets: the common short answer is decoded at
        # once. Only a line that is not JSON goes on, to be refused as it always was.
        with contextlib.suppress(ValueError):
            return plain_object(line)
    verdict = nesting_too_deep(line)
    if verdict:
        raise AnswerRefused(TOO_DEEP)
    try:
        value = json.loads(line)
    except RecursionError:
        raise AnswerRefused(TOO_DEEP) from None
    if verdict is None and depth_of(value) > MAX_DEPTH:
        raise AnswerRefused(TOO_DEEP)
    return value


def plain_object(line: bytes) -> object:
    """`json.loads(line)` for the line the worker writes: an object, in ASCII, and nothing
    around it. `json.loads` reads such bytes as UTF-8 (no BOM, no NUL byte: not UTF-16 or
    32), which they are as ASCII; any other line is decoded by `json.loads` itself."""
    if line[:1] == b"{" and line.isascii():
        text = line.decode("ascii")
        with contextlib.suppress(ValueError, StopIteration):
            value, end = SCAN(text, 0)
            if end == len(text):
                return value
    return json.loads(line)


# Answers held in one test above which they are freed before the next test starts.
COLLECT_AFTER_BYTES = 16 * 2**20


class AnswerBudget:
    """The answers held during one test, against one fixed budget."""

    def __init__(self, limit: int | None = None) -> None:
        self.given_limit = limit
        self.held = 0

    @property
    def limit(self) -> int:
        # Read when charged: a worker may be made well before its first answer.
        return MAX_HELD_BYTES if self.given_limit is None else self.given_limit

    def new_test(self) -> None:
        # What an earlier test was given is dropped with that test. A failed check's
        # exception keeps its frames, and in them the answers, in a cycle that only the
        # collector breaks (and as the last exception, in `sys`): after large answers
        # both are let go of at once, so they are not still held in the next test.
        if self.held > COLLECT_AFTER_BYTES:
            for name in ("last_type", "last_value", "last_traceback", "last_exc"):
                if hasattr(sys, name):
                    setattr(sys, name, None)
            gc.collect()
        self.held = 0

    def charge(self, line: bytes) -> None:
        cost = decoded_estimate(line)
        if self.held + cost > self.limit:
            raise AnswerRefused(
                f"Your code's answers came to more than {self.limit // 2**20} MB of data "
                "in one check (all its calls together); the grader does not read more."
            )
        self.held += cost
