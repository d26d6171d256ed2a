"""What a worker answers for a call: plain values as they are, anything else tagged."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from chunklab.contract import WorkerCrashed
from chunklab.running.submission_proxy import NotPlainData, answer_value
from chunklab.sandbox.answer_shape import BROKEN_PROTOCOL
from chunklab.sandbox.worker import WorkerProcess
from chunklab.sandbox.worker_main import Session

CODE = """
import math

def give(kind):
    return {
        "words": ["a", "b"],
        "chunks": [{"text": "a", "char_start": 0, "metadata": {"k": [1, 2.5, None, True]}}],
        "tuple": ("a", "b"),
        "infinity": math.inf,
        "int_keys": {1: "a"},
        "nested_tuple": [["a"], ("b",)],
        "dict_subclass": [type("Record", (dict,), {})(text="a")],
        "subclasses": Chunks([Text("a"), Text("b")]),
    }[kind]

class Text(str):
    # Whatever a subclass says of itself, what it holds is what crosses.
    def __str__(self):
        return "forged"

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__

class Chunks(list):
    def __iter__(self):
        return iter(["forged"])

    def copy(self):
        return ["forged"]

def keep(doc):
    return len(doc)

def touch(doc):
    doc["seen"] = True
    return 0

def spoil(doc):
    doc["pair"] = (1, 2)
    return 0
"""


@pytest.fixture(scope="module")
def session() -> Session:
    session = Session()
    session.load([{"index": 0, "label": "submission.py", "source": CODE}])
    return session


def call(session: Session, name: str, *args: object) -> dict:
    return session.call({"op": "call", "name": name, "args": list(args), "kwargs": {}})


@pytest.mark.parametrize("kind", ["words", "chunks"])
def test_plain_answers_are_sent_as_they_are(session, kind):
    answer = call(session, "give", kind)
    assert "tagged" not in answer
    assert answer_value(answer) == call(session, "give", kind)["ok"]
    assert answer_value(answer) is answer["ok"]


@pytest.mark.parametrize(
    ("kind", "type_name"),
    [
        ("tuple", "tuple"),
        ("infinity", "float"),
        ("int_keys", "dict"),
        ("nested_tuple", "tuple"),
        ("dict_subclass", "Record"),
    ],
)
def test_other_answers_carry_a_stand_in_for_what_is_not_plain(session, kind, type_name):
    answer = call(session, "give", kind)
    assert answer["tagged"] is True
    value = answer_value(answer)
    found = value[-1] if isinstance(value, list) else value
    assert isinstance(found, NotPlainData)
    assert found.type_name == type_name


def test_subclasses_of_str_and_list_cross_as_the_plain_values_they_hold(session):
    # A list of strings is what the lessons ask for, and a subclass of either is one.
    value = answer_value(call(session, "give", "subclasses"))
    assert value == ["a", "b"]
    assert type(value) is list
    assert [type(item) for item in value] == [str, str]


def test_arguments_left_alone_are_not_sent_back(session):
    assert call(session, "keep", {"id": "d", "body": "x"}) == {"ok": 2}


@pytest.mark.parametrize("name", ["touch", "spoil"])
def test_changed_arguments_are_never_reported(session, name):
    # The submission shares the worker's process and could forge such a report,
    # so the answer holds the result alone and no score can rest on it.
    assert call(session, name, {"id": "d"}) == {"ok": 0}


# An answerer that replies to every request with the same line, whatever was asked.
ANSWERER = "import sys\nfor line in sys.stdin:\n    print({reply!r}, flush=True)\n"


@pytest.fixture
def answering(tmp_path):
    """A process that speaks the worker's protocol with a fixed answer, seen as a worker."""
    started = []

    def start(reply: str) -> WorkerProcess:
        process = subprocess.Popen(
            [sys.executable, "-c", ANSWERER.format(reply=reply)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        output_read, output_write = os.pipe()
        os.close(output_write)
        worker = WorkerProcess(
            pid=process.pid,
            requests=os.dup(process.stdin.fileno()),
            answers=os.dup(process.stdout.fileno()),
            output=output_read,
            output_limit=1024,
            process_group=False,
            work_dir=None,
        )
        started.append((process, worker))
        return worker

    yield start
    for process, worker in started:
        worker.kill()
        process.stdin.close()
        process.stdout.close()
        process.wait()


CALL = {"op": "call", "name": "chunk", "args": ["ab", 1, 0], "kwargs": {}}


@pytest.mark.parametrize(
    ("reply", "request_"),
    [
        ('{"problems": [], "defined": ["chunk"]}', CALL),  # a load's answer to a call
        ('{"handle": 1}', CALL),
        ('{"raised": {"kind": "x"}}', CALL),
        ('{"ok": 1}', {"op": "load", "cells": []}),
        ("[1]", CALL),
    ],
)
def test_an_answer_that_does_not_fit_its_request_is_a_broken_protocol(answering, reply, request_):
    worker = answering(reply)
    with pytest.raises(WorkerCrashed) as crashed:
        worker.request(request_, 10)
    assert str(crashed.value) == BROKEN_PROTOCOL
    assert not worker.alive


@pytest.mark.parametrize(
    ("reply", "request_"),
    [
        ('{"ok": ["a", "b"]}', CALL),
        ('{"raised": {"type": "KeyError", "builtin": "KeyError", "message": "x"}}', CALL),
        ('{"problems": [], "defined": ["chunk"]}', {"op": "load", "cells": []}),
        ('{"handle": 3}', {**CALL, "op": "new", "handle": 3}),
    ],
)
def test_an_answer_that_fits_its_request_is_handed_on(answering, reply, request_):
    assert answering(reply).request(request_, 10) == json.loads(reply)


@pytest.mark.parametrize(
    ("reply", "request_"),
    [
        # A digest answers only a call that asked for one ...
        ('{"digest": "' + "0" * 128 + '"}', CALL),
        # ... and is what the worker makes: 128 hexadecimal digits.
        ('{"digest": "\u00e9"}', {**CALL, "digest": "ab" * 32}),
        ('{"digest": "' + "0" * 127 + '"}', {**CALL, "digest": "ab" * 32}),
        ('{"digest": 7}', {**CALL, "digest": "ab" * 32}),
    ],
)
def test_a_digest_that_does_not_fit_its_request_is_a_broken_protocol(answering, reply, request_):
    worker = answering(reply)
    with pytest.raises(WorkerCrashed) as crashed:
        worker.request(request_, 10)
    assert str(crashed.value) == BROKEN_PROTOCOL


@pytest.mark.parametrize(
    "reply",
    [
        '{"digest": "' + "0a" * 64 + '"}',
        '{"ok": ["a"]}',
        '{"raised": {"type": "E", "message": "m"}}',
    ],
)
def test_a_call_asked_by_digest_may_be_answered_by_one_or_as_usual(answering, reply):
    assert answering(reply).request({**CALL, "digest": "ab" * 32}, 10) == json.loads(reply)


def test_running_out_of_memory_at_load_is_reported_as_such(chunklab, tmp_path):
    path = tmp_path / "char_chunk.py"
    path.write_text("HOARD = bytearray(1 << 50)\n\ndef chunk(text, size, overlap):\n    return 0\n")
    [report] = chunklab("grade", path, "--memory-mb", "300").reports
    assert report["status"] == "error"
    [error] = report["errors"]
    assert error["kind"] == "out_of_memory"
    assert error["message"].startswith(
        "your code went over the memory limit (300 MB) while it was being loaded"
    )
    assert "MemoryError" in error["message"]
