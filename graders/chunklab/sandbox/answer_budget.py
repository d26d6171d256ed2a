"""How much of a submission's answers the grading process may hold, checked before decoding.

A worker's answer is JSON that the submission could have written itself, so
the grading process never trusts its shape: before `json.loads`, a cheap
scan of the bytes bounds how deep the value is nested (deep nesting makes
the decoder recurse until it fails) and how large it will be once decoded
(`[{},{},...]` takes some twenty times its JSON size as Python objects).
The answers a submission has sent since its last request, those sent ahead
included, share one budget.
"""

from __future__ import annotations

import re

# One answer's JSON, as read from the worker.
MAX_ANSWER_BYTES = 32 * 1024 * 1024
# Everything decoded from one submission's answers since its last request, estimated.
MAX_HELD_BYTES = 128 * 1024 * 1024
# The worker sends values nested at most 60 deep (deeper ones become stand-ins).
MAX_DEPTH = 100
# A decoded value costs at most about this much besides its text (a dict, a float,
# a short string, each with the list slot that holds it).
BYTES_PER_VALUE = 72
# Below this size an answer needs no scan: even all commas it decodes to little.
SMALL_ANSWER = 64 * 1024

TOO_LARGE = f"Your code returned more than {MAX_ANSWER_BYTES // 2**20} MB of data in one answer."
STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class AnswerRefused(Exception):
    """An answer the grading process will not decode; the message is for the student."""


def nesting_too_deep(stripped: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when brackets (outside strings) nest deeper than `limit`, or do not match."""
    brackets = stripped.translate(None, NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        # Each pass removes the innermost level, however wide the value is.
        reduced = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if reduced == brackets:
            return True
        brackets = reduced
    return bool(brackets)


def decoded_estimate(line: bytes) -> int:
    """An upper estimate of the memory `json.loads(line)` takes; refuses deep nesting."""
    if len(line) > MAX_ANSWER_BYTES:
        raise AnswerRefused(TOO_LARGE)
    if len(line) <= SMALL_ANSWER and line.count(b"[") + line.count(b"{") <= MAX_DEPTH:
        return len(line) * (1 + BYTES_PER_VALUE // 2)
    stripped = STRING.sub(b'""', line)
    if nesting_too_deep(stripped):
        raise AnswerRefused(
            f"Your code returned a value nested more than {MAX_DEPTH} levels deep; "
            "the grader does not read it."
        )
    values = stripped.count(b",") + stripped.count(b"[") + stripped.count(b"{") + 1
    return len(line) + BYTES_PER_VALUE * values


class AnswerBudget:
    """The answers held since the submission's last request, against one fixed budget."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_HELD_BYTES if limit is None else limit
        self.held = 0

    def new_request(self) -> None:
        # Answers to earlier requests have been used or dropped by the time a new one goes.
        self.held = 0

    def charge(self, line: bytes) -> None:
        cost = decoded_estimate(line)
        if self.held + cost > self.limit:
            raise AnswerRefused(
                f"Your code's answers came to more than {self.limit // 2**20} MB of data "
                "(counting the calls a check sends together); the grader does not read more."
            )
        self.held += cost
