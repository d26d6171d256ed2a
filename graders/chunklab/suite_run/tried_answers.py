"""The answers to the inputs to try, asked for before any hidden check runs.

A failed hidden check searches a fixed list of small inputs for one that breaks
its rule for this submission, and offers it to try (see `suites/tries.py`).
Which one the search finds is the submission's choice. Had its calls gone to
the submission after the hidden checks, code given a hidden input could choose
which try fails from what that input was: from a file it wrote, or from the
clock, by how long it had taken, and so show a few bits of the input in the
feedback. So every call a search may make is made first, before the tests, in
one request, by a child process of the worker that ends before the first test
(the backend's `request_tries`: what the calls leave in a process reaches no test);
once the tests are done, the searches read the answers kept here and no call of
theirs reaches the submission. What they show was decided before any hidden
input was sent.

A call is found again by what it asks of the submission, not by the number
of the object it is made on: an object's calls are keyed by how it was made
and what was asked of it before (see `CallKeys`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from chunklab.contract import Backend, WorkerCrashed
from chunklab.sandbox.worker_main import digest_of_bytes
from chunklab.suite_run.in_process import InProcessBackend

# What the grader makes anew for each call: the key of a digest of the answer, or of
# the arguments (the call asks for them all the same), and the number of its object.
PER_CALL_FIELDS = ("digest", "inputs", "handle")


class TriedInputs(Protocol):
    """A hidden suite's inputs to try, as the suite declares them (its `TRIED`)."""

    def make_every_call(self, submission: Any) -> None:
        """Make every call a search of these inputs may make, on `submission`, judging none."""


class AnswerNotAsked(WorkerCrashed):
    """A search made a call that was not asked before the hidden checks: it ends there."""


def sent_arguments(message: dict[str, Any]) -> bytes:
    """The arguments of a call as the grader digests them (see `value_and_inputs`)."""
    return json.dumps([message.get("args", []), message.get("kwargs", {})]).encode()


class CallKeys:
    """Keys for calls: the same for the same call, whatever numbers its objects were given.

    A function's call is keyed by its message; a call on an object by the
    message that made the object and every call made on it before, in order, so
    two objects made and used alike have calls of the same keys.
    """

    def __init__(self) -> None:
        self.histories: dict[int, str] = {}

    def key(self, message: dict[str, Any]) -> str:
        asked = {k: v for k, v in message.items() if k not in PER_CALL_FIELDS}
        if "inputs" in message:
            asked["inputs"] = True  # a call asked about its arguments answers more
        text = json.dumps(asked, sort_keys=True, default=repr)
        handle = message.get("handle")
        if handle is None:
            return text
        if message["op"] != "new":
            text = f"{self.histories.get(handle, '?')}\n{text}"
        self.histories[handle] = text
        return text


@dataclass(frozen=True)
class KeptAnswer:
    """A call's answer, or the error that ended it; for a call asked about its arguments,
    what the call left in them when it changed them (None when it changed nothing)."""

    answer: dict[str, Any] | Exception
    left: dict[str, Any] | None = None


@dataclass(frozen=True)
class AskedFirst:
    """Every call the searches may make, each once, ready to send; their objects numbered
    from 1, a submission's own numbers following on from those it has given."""

    messages: tuple[dict[str, Any], ...]
    keys: tuple[str, ...]
    objects: int


def asked_first(messages: Sequence[dict[str, Any]]) -> AskedFirst:
    """The calls of `messages` to ask: those whose answers no call before them gives.

    A call on an object needs the object made again, and the calls made on it
    before, so they are asked with it.
    """
    keys = CallKeys()
    keyed = [(message, keys.key(message)) for message in messages]
    # Each object by the place of the call that made it: calls noted ahead of a check
    # may give numbers that later ones give again.
    made_by: dict[int, int] = {}
    objects: list[int | None] = []
    for n, (message, _) in enumerate(keyed):
        if "handle" in message and message["op"] == "new":
            made_by[message["handle"]] = n
        objects.append(made_by.get(message["handle"], -1) if "handle" in message else None)
    needed = [False] * len(keyed)
    seen: set[str] = set()
    calls_on: dict[int, list[int]] = {}
    for n, ((_, key), made) in enumerate(zip(keyed, objects, strict=True)):
        if made is not None:
            calls_on.setdefault(made, []).append(n)
        if key not in seen:
            seen.add(key)
            for m in calls_on[made] if made is not None else [n]:
                needed[m] = True
    numbers: dict[int, int] = {}
    asked: list[dict[str, Any]] = []
    asked_keys: list[str] = []
    for (message, key), need, made in zip(keyed, needed, objects, strict=True):
        if not need:
            continue
        call = {k: v for k, v in message.items() if k not in PER_CALL_FIELDS}
        if made is not None:
            if made < 0:
                continue  # a call on an object no call here made
            call["handle"] = numbers.setdefault(made, len(numbers) + 1)
        if "inputs" in message:
            call["inputs"] = ""  # keyed anew for each submission
        asked.append(call)
        asked_keys.append(key)
    return AskedFirst(tuple(asked), tuple(asked_keys), len(numbers))


class TriedAnswers:
    """The answers the searches for inputs to try read, asked for all at once."""

    def __init__(self) -> None:
        self.kept: dict[str, KeptAnswer] = {}
        self.keys = CallKeys()
        self.held: dict[str, Any] | None = None

    def ask(self, backend: Backend, calls: AskedFirst, numbers_given: int) -> None:
        """Ask the submission `calls`, their objects numbered after the `numbers_given`.

        A call stopped past its time has its error kept as its answer. Where the asking
        ended early (too many calls stopped, or the grader stopped it all), the calls
        after have none: a search that reaches one of them ends there.
        """
        if not calls.messages:
            return
        arguments_key = secrets.token_hex(32)
        sent = [numbered(call, numbers_given, arguments_key) for call in calls.messages]
        outcomes = backend.request_tries(sent)
        for asked, key, outcome in zip(sent, calls.keys, outcomes, strict=False):
            self.kept.setdefault(key, kept_answer(asked, outcome, arguments_key))

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """The kept answer to a search's call, as the worker would have given it."""
        if message["op"] == "held":
            held, self.held = self.held, None
            return held if held is not None else {"ok": None}
        kept = self.kept.get(self.keys.key(message))
        if kept is None:
            raise AnswerNotAsked("This input was not tried before the hidden checks.")
        if isinstance(kept.answer, Exception):
            raise kept.answer
        answer = dict(kept.answer)
        if "inputs" in message and "ok" in answer:
            unchanged = digest_of_bytes(message["inputs"], sent_arguments(message))
            answer["inputs"] = unchanged if kept.left is None else "changed"
            self.held = kept.left
        return answer


def numbered(call: dict[str, Any], numbers_given: int, arguments_key: str) -> dict[str, Any]:
    """A call to send: its object's number after those given, its arguments' key this one."""
    if "handle" not in call and "inputs" not in call:
        return call
    call = dict(call)
    if "handle" in call:
        call["handle"] += numbers_given
    if "inputs" in call:
        call.update(inputs=arguments_key, left=True)
    return call


def kept_answer(
    asked: dict[str, Any], outcome: dict[str, Any] | Exception, arguments_key: str
) -> KeptAnswer:
    if isinstance(outcome, Exception) or "inputs" not in asked or "ok" not in outcome:
        return KeptAnswer(outcome)
    answer = {k: v for k, v in outcome.items() if k not in ("inputs", "left")}
    unchanged = digest_of_bytes(arguments_key, sent_arguments(asked))
    if outcome.get("inputs") == unchanged:
        return KeptAnswer(answer)
    return KeptAnswer(answer, left=outcome.get("left", {"ok": None}))


class NotedCalls(Backend):
    """The reference solution in this process, noting each call made of it."""

    def __init__(self, reference: ModuleType) -> None:
        self.reference = InProcessBackend(dict(vars(reference)))
        self.messages: list[dict[str, Any]] = []

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.messages.append(message)
        return self.reference.request(message)


def every_call_tried(
    tried: Iterable[TriedInputs], reference: ModuleType, proxy: Callable[[Backend], Any]
) -> list[dict[str, Any]]:
    """Every call the searches of `tried` may make, found by making them of the reference.

    A search makes the calls of its check on each input it tries; made of the
    reference, they are the calls a check makes when the answers are right,
    which a check stopped by a wrong answer makes a first part of.
    """
    noted = NotedCalls(reference)
    submission = proxy(noted)
    for inputs in tried:
        inputs.make_every_call(submission)
    return noted.messages


def calls_to_ask_first(
    tried: Sequence[TriedInputs], reference: ModuleType, proxy: Callable[[Backend], Any]
) -> AskedFirst:
    """The calls to ask each submission first: the same for every submission a grading
    process grades against these inputs and this reference, so they are made once."""
    key = (id(reference), *map(id, tried))
    known = ASKED_FIRST.get(key)
    if known is None:
        if len(ASKED_FIRST) >= MOST_LESSONS_KEPT:
            ASKED_FIRST.clear()
        # The objects are held with the calls, so that their ids are not used again.
        made = asked_first(every_call_tried(tried, reference, proxy))
        known = ASKED_FIRST[key] = (tuple(tried), reference, made)
    return known[2]


# By the ids of a lesson's inputs to try and its reference: a grading process grades
# a few lessons, each in many pytest sessions.
MOST_LESSONS_KEPT = 8
ASKED_FIRST: dict[tuple[int, ...], tuple[tuple[TriedInputs, ...], ModuleType, AskedFirst]] = {}
