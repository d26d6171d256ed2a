"""Calls sent ahead in one message: each answers exactly as if it had been made alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chunklab.contract import CallTimedOut, CodeCell, WorkerCrashed
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy

LIMITS = Limits(call_seconds=0.5, submission_seconds=20.0)

SOURCE = """
import os

calls = []

def count(step):
    calls.append(step)
    return sum(calls)

def loop():
    while True:
        pass

def crash():
    os._exit(1)

def touch(doc):
    doc["seen"] = True
    return len(doc)

def bad(value):
    raise ValueError(f"no {value}")

class Counter:
    def __init__(self, start):
        self.value = start

    def add(self, step):
        self.value += step
        return self.value
"""


class CountingBackend(SandboxBackend):
    """Counts the messages that reach the worker."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.messages = 0

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.messages += 1
        return super().request(message)

    def request_many(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        self.messages += 1
        return super().request_many(messages)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS)) as started:
        yield started


@pytest.fixture
def start(zygote: Zygote) -> Iterator[Callable[[], tuple[SubmissionProxy, CountingBackend]]]:
    backends: list[CountingBackend] = []

    def started() -> tuple[SubmissionProxy, CountingBackend]:
        backend = CountingBackend(zygote, (CodeCell(0, "submission.py", SOURCE),), LIMITS)
        backends.append(backend)
        backend.load()
        proxy = SubmissionProxy(backend)
        proxy.begin_test()
        return proxy, backend

    yield started
    for backend in backends:
        backend.close()


def test_calls_sent_ahead_take_one_message_and_answer_in_order(start):
    proxy, backend = start()
    with proxy.ahead() as later:
        for step in (1, 2, 3):
            later.count(step)
    assert backend.messages == 1
    assert [proxy.count(step) for step in (1, 2, 3)] == [1, 3, 6]
    assert backend.messages == 1


def test_objects_created_ahead_are_the_ones_the_test_creates(start):
    proxy, backend = start()
    with proxy.ahead() as later:
        first = later.Counter(10)
        first.add(1)
        later.Counter(20).add(2)
        first.add(3)
    one = proxy.Counter(10)
    assert one.add(1) == 11
    assert proxy.Counter(20).add(2) == 22
    assert one.add(3) == 14
    assert backend.messages == 1


def test_a_call_that_differs_from_the_plan_is_sent_as_usual(start):
    proxy, backend = start()
    with proxy.ahead() as later:
        later.count(1)
        later.count(2)
    assert proxy.count(1) == 1
    # count(2) already ran ahead, so the submission has seen 1, 2 and now 5.
    assert proxy.count(5) == 8
    assert backend.messages == 2
    assert proxy.count(2) == 10
    assert backend.messages == 3


def test_raised_exceptions_and_answers_come_back_as_from_a_call_alone(start):
    proxy, _ = start()
    doc = {"id": "d"}
    with proxy.ahead() as later:
        later.bad("way")
        later.touch(doc)
    with pytest.raises(ValueError, match="no way"):
        proxy.bad("way")
    assert proxy.touch(doc) == 2
    assert doc == {"id": "d"}


@pytest.mark.parametrize(
    ("failing", "error", "message"),
    [
        ("loop", CallTimedOut, r"Input: loop\(\)\nYour code did not finish"),
        ("crash", WorkerCrashed, r"Input: crash\(\)\nYour code ended the process"),
    ],
)
def test_a_call_ahead_that_fails_fails_where_the_test_makes_it(start, failing, error, message):
    proxy, _ = start()
    with proxy.ahead() as later:
        later.count(1)
        getattr(later, failing)()
        later.count(2)
    assert proxy.count(1) == 1
    with pytest.raises(error, match=message):
        getattr(proxy, failing)()
    proxy.begin_test()
    # The worker was replaced: a fresh one has seen no call yet.
    assert proxy.count(2) == 2


def test_answers_sent_ahead_do_not_outlive_their_test(start):
    proxy, backend = start()
    with proxy.ahead() as later:
        later.count(1)
    proxy.begin_test()
    assert proxy.count(1) == 2
    assert backend.messages == 2
