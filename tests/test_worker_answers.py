"""What a worker answers for a call: plain values as they are, anything else tagged."""

from __future__ import annotations

import pytest

from chunklab.running.submission_proxy import NotPlainData, answer_value
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
        "str_subclass": [type("Text", (str,), {})("a")],
    }[kind]

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
        ("str_subclass", "Text"),
    ],
)
def test_other_answers_carry_a_stand_in_for_what_is_not_plain(session, kind, type_name):
    answer = call(session, "give", kind)
    assert answer["tagged"] is True
    value = answer_value(answer)
    found = value[-1] if isinstance(value, list) else value
    assert isinstance(found, NotPlainData)
    assert found.type_name == type_name


def test_arguments_left_alone_are_not_sent_back(session):
    assert call(session, "keep", {"id": "d", "body": "x"}) == {"ok": 2}


@pytest.mark.parametrize("name", ["touch", "spoil"])
def test_changed_arguments_are_never_reported(session, name):
    # The submission shares the worker's process and could forge such a report,
    # so the answer holds the result alone and no score can rest on it.
    assert call(session, name, {"id": "d"}) == {"ok": 0}
