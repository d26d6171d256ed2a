"""What a worker answers for a call: plain values as they are, anything else tagged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from chunklab import contract
from chunklab.contract import ProtocolBroken, WorkerCrashed
from chunklab.pipeline.session import load_warnings
from chunklab.sandbox import worker_main
from chunklab.sandbox.answer_shape import (
    BROKEN_PROTOCOL,
    MAX_MESSAGE,
    MAX_NAME,
    MAX_PROBLEM_MESSAGE,
    MAX_PROBLEMS,
    Expected,
    LoadAnswer,
    LoadProblem,
    checked_answer,
    load_answer,
)
from chunklab.sandbox.worker import WorkerProcess
from chunklab.sandbox.worker_main import MAX_REPR, Session
from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.submission_proxy import (
    NotPlainData,
    SubmissionProxy,
    answer_value,
    decode,
)

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
        "huge_int": ["a", 10**5000],
        "int_past_a_lowered_limit": [10**700],
    }[kind]

def give_after_lowering_the_digit_limit():
    import sys
    sys.set_int_max_str_digits(640)  # as low as Python lets it go
    return [10**639 - 1]

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
        # Python will not turn such an int into digits: it must not end the worker.
        ("huge_int", "int"),
        ("int_past_a_lowered_limit", "int"),
    ],
)
def test_other_answers_carry_a_stand_in_for_what_is_not_plain(session, kind, type_name):
    answer = call(session, "give", kind)
    assert answer["tagged"] is True
    value = answer_value(answer)
    found = value[-1] if isinstance(value, list) else value
    assert isinstance(found, NotPlainData)
    assert found.type_name == type_name


def test_an_exception_s_message_names_no_memory_address():
    described = worker_main.describe_exception(ValueError(object()))
    assert described["message"] == "<object object>"


def test_every_answer_is_a_line_the_worker_can_write(session):
    for kind in ("huge_int", "int_past_a_lowered_limit"):
        assert json.loads(json.dumps(call(session, "give", kind)))
    assert repr(answer_value(call(session, "give", "huge_int"))[1]) == (
        "<an int: an int of about 5001 digits>"
    )
    limit = sys.get_int_max_str_digits()
    try:
        answer = call(session, "give_after_lowering_the_digit_limit")
        assert json.loads(json.dumps(answer)) == {"ok": [10**639 - 1]}
    finally:
        sys.set_int_max_str_digits(limit)


def test_subclasses_of_str_and_list_cross_as_the_plain_values_they_hold(session):
    # A list of strings is what the lessons ask for, and a subclass of either is one.
    value = answer_value(call(session, "give", "subclasses"))
    assert value == ["a", "b"]
    assert type(value) is list
    assert [type(item) for item in value] == [str, str]


def test_a_list_of_strings_is_told_plain_without_a_step_per_item(monkeypatch):
    calls = []
    real = worker_main.is_plain
    monkeypatch.setattr(
        worker_main, "is_plain", lambda value, depth=0: calls.append(1) or real(value, depth)
    )
    assert worker_main.is_plain(["a", "b", "c"] * 100)
    assert calls == [1]
    assert not worker_main.is_plain(["a", ("b",), "c"])
    assert worker_main.is_plain([["a"], {"k": [1, 2.5, None]}])


def test_a_digest_is_of_the_value_s_marshal_bytes_and_the_kept_answer_is_the_value(monkeypatch):
    session = worker_main.Session()
    session.load([{"index": 0, "label": "submission.py", "source": CODE}])
    checked = []
    real = worker_main.is_plain
    monkeypatch.setattr(worker_main, "is_plain", lambda value: checked.append(1) or real(value))
    key = "ab" * 32
    asked = {"op": "call", "name": "give", "args": ["chunks"], "kwargs": {}, "digest": key}
    digest = session.call(asked)["digest"]
    value = session.call({"op": "call", "name": "give", "args": ["chunks"], "kwargs": {}})["ok"]
    assert digest == worker_main.digest_of_bytes(key, contract.answer_bytes(value))
    # A right answer is only digested: it is looked at as an answer only when asked for.
    checked.clear()
    session.call(asked)
    assert checked == []
    assert session.call({"op": "kept", "name": "give"}) == {"ok": value}
    assert checked == [1]


@pytest.mark.parametrize("kind", ["subclasses", "dict_subclass"])
def test_a_value_a_digest_cannot_be_made_of_crosses_itself(session, kind):
    asked = {"op": "call", "name": "give", "args": [kind], "kwargs": {}, "digest": "ab" * 32}
    answer = session.call(asked)
    assert "digest" not in answer
    assert answer == session.call({k: v for k, v in asked.items() if k != "digest"})
    assert session.kept is None


@pytest.mark.parametrize(
    "value",
    [("a",), ["a", ("b",)], {1: "a"}, [float("nan")], [float("inf")], [b"a"], {"a": {1, 2}}],
)
def test_only_plain_data_is_an_answer_a_digest_can_equal(value):
    with pytest.raises(ValueError):
        contract.answer_bytes(value)


def test_equal_plain_values_give_equal_digest_bytes_however_they_were_made():
    made = ["".join(["doc", "_id"]), 10**30, -0.0, {"k": [True, None, 2.5]}]
    assert contract.answer_bytes(made) == contract.answer_bytes(json.loads(json.dumps(made)))
    assert contract.answer_bytes([1]) != contract.answer_bytes([1.0])
    assert contract.answer_bytes([1]) != contract.answer_bytes([True])
    assert contract.answer_bytes({"a": 1, "b": 2}) != contract.answer_bytes({"b": 2, "a": 1})


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
        # The size of the answer's bytes, if given, is a count.
        ('{"digest": "' + "0a" * 64 + '", "size": -1}', {**CALL, "digest": "ab" * 32}),
        ('{"digest": "' + "0a" * 64 + '", "size": "9"}', {**CALL, "digest": "ab" * 32}),
        ('{"digest": "' + "0a" * 64 + '", "size": 9.0}', {**CALL, "digest": "ab" * 32}),
        ('{"digest": "' + "0a" * 64 + '", "size": 9, "x": 1}', {**CALL, "digest": "ab" * 32}),
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
        '{"digest": "' + "0a" * 64 + '", "size": 0}',
        '{"digest": "' + "0a" * 64 + '", "size": 1048576}',
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


@pytest.mark.parametrize(
    ("reply", "request_"),
    [
        ('{"handle": 4}', {**CALL, "op": "new", "handle": 3}),  # not the handle the grader chose
        ('{"handle": true}', {**CALL, "op": "new", "handle": 1}),
        ('{"handle": 3, "ok": 1}', {**CALL, "op": "new", "handle": 3}),
        # A value alone answers neither a new object nor a call that asked for its inputs.
        ('{"ok": 1}', {**CALL, "op": "new", "handle": 3}),
        ('{"ok": 1}', {**CALL, "inputs": "ab" * 32}),
        ('{"ok": 1, "tagged": false}', CALL),
        ('{"ok": 1, "extra": "x"}', CALL),
        ('{"raised": {"type": "E", "message": "m", "builtin": 7}}', CALL),
        ('{"raised": {"type": "E", "message": ["m"]}}', CALL),
        ('{"raised": {"type": "E", "message": "m", "trace": "t"}}', CALL),
        ('{"raised": {"type": "E", "message": "m"}, "ok": 1}', CALL),
        ('{"digest": "' + "0a" * 64 + '", "ok": 1}', {**CALL, "digest": "ab" * 32}),
        ('{"problems": [], "defined": [], "ok": 1}', {"op": "load", "cells": []}),
        ('{"problems": []}', {"op": "load", "cells": []}),
    ],
)
def test_an_answer_with_keys_or_types_the_worker_never_sends_is_a_broken_protocol(
    answering, reply, request_
):
    worker = answering(reply)
    with pytest.raises(ProtocolBroken) as broken:
        worker.request(request_, 10)
    assert str(broken.value) == BROKEN_PROTOCOL
    assert not worker.alive


def test_an_answer_to_no_request_is_a_broken_protocol():
    with pytest.raises(ProtocolBroken):
        checked_answer({"ok": 1}, Expected(""))


def test_the_texts_of_an_exception_are_cut_with_a_note():
    raised = {"type": "E" * 5000, "builtin": "ValueError", "message": "m" * 100_000}
    answer = checked_answer({"raised": raised}, Expected("call"))
    assert answer == {
        "raised": {
            "type": "E" * MAX_NAME + f" ...[{5000 - MAX_NAME} more characters not shown]",
            "builtin": "ValueError",
            "message": "m" * MAX_MESSAGE
            + f" ...[{100_000 - MAX_MESSAGE} more characters not shown]",
        }
    }


CELLS = (0, 1, 2)


def problem(cell: int, kind: str = "raised", message: str = "boom") -> dict:
    return {"cell": cell, "kind": kind, "message": message}


@pytest.mark.parametrize(
    "answer",
    [
        {"problems": [1], "defined": ["chunk"]},
        {"problems": [{"cell": 0}], "defined": ["chunk"]},
        {"problems": [problem(0), problem(0)], "defined": []},  # one cell, failed twice
        {"problems": [problem(7)], "defined": []},  # a cell never sent
        {"problems": [problem(True)], "defined": []},
        {"problems": [problem(0, kind="exploded")], "defined": []},
        {"problems": [{**problem(0), "message": 7}], "defined": []},
        {"problems": [{**problem(0), "line": "2"}], "defined": []},
        {"problems": [{**problem(0), "colour": "red"}], "defined": []},
        {"problems": [problem(c) for c in (0, 1, 2, 0)], "defined": []},  # more than the cells
        {"problems": "none", "defined": []},
        {"problems": [], "defined": ["chunk", 3]},
        {"problems": [], "defined": "chunk"},
        # A blocked import is found before any cell runs: it is the answer's one problem.
        {
            "problems": [{"kind": "import_blocked", "modules": ["numpy"], "message": "m"}]
            + [problem(0)],
            "defined": [],
        },
        {"problems": [{"kind": "import_blocked", "modules": [1], "message": "m"}], "defined": []},
    ],
)
def test_a_load_answer_that_does_not_fit_the_cells_sent_is_a_broken_protocol(answer):
    with pytest.raises(ProtocolBroken) as broken:
        load_answer(answer, CELLS)
    assert str(broken.value) == BROKEN_PROTOCOL


def test_a_load_answer_that_fits_is_bounded_and_says_what_it_left_out():
    cells = tuple(range(MAX_PROBLEMS + 5))
    problems = [problem(cell, message="x" * 10**6) for cell in cells]
    loaded = load_answer({"problems": problems, "defined": ["chunk", "helper"]}, cells)
    note = f" ...[{10**6 - MAX_PROBLEM_MESSAGE} more characters not shown]"
    assert loaded == LoadAnswer(
        problems=tuple(
            LoadProblem("raised", "x" * MAX_PROBLEM_MESSAGE + note, cell)
            for cell in cells[:MAX_PROBLEMS]
        ),
        defined=frozenset({"chunk", "helper"}),
        left_out=5,
    )


def test_warnings_left_out_of_a_notebook_are_counted_in_a_note():
    loaded = LoadAnswer((LoadProblem("raised", "boom"),) * MAX_PROBLEMS, frozenset(), left_out=5)
    notebook = SimpleNamespace(kind="notebook")
    warnings = load_warnings(notebook, loaded)  # type: ignore[arg-type]
    assert [w.kind for w in warnings] == ["cell_failed"] * MAX_PROBLEMS + ["warnings_cut"]
    assert warnings[-1].message == f"5 more cells failed; only the first {MAX_PROBLEMS} are shown"


@pytest.mark.parametrize(
    ("stand_in", "type_name", "text"),
    [
        (
            {"$unplain": "T" * 500, "repr": "r" * 5000},
            "T" * 100 + " ...[400 more characters not shown]",
            "r" * MAX_REPR + f" ...[{5000 - MAX_REPR} more characters not shown]",
        ),
        ({"$unplain": ["tuple"], "repr": {"a": 1}}, "?", "?"),
    ],
)
def test_a_stand_in_shows_only_a_bounded_text(stand_in, type_name, text):
    [value] = decode([stand_in])
    assert isinstance(value, NotPlainData)
    assert (value.type_name, value.text) == (type_name, text)


@pytest.mark.parametrize(
    ("raising", "builtin"),
    [
        ("b'\\xff'.decode('utf-8')", UnicodeError),  # UnicodeDecodeError takes five arguments
        ("'\\udc80'.encode('utf-8')", UnicodeError),
        ("(_ for _ in ()).throw(ExceptionGroup('two', [ValueError(1), KeyError(2)]))", Exception),
    ],
)
def test_an_exception_that_takes_more_than_a_message_comes_back_as_its_nearest_kind(
    raising, builtin
):
    backend = InProcessBackend()
    source = f"def fail():\n    {raising}\n"
    backend.request({"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]})
    with pytest.raises(builtin) as raised:
        SubmissionProxy(backend).fail()
    assert type(raised.value) is builtin


@pytest.mark.parametrize("source", ["x = " + "1+" * 100_000 + "1", "x = " + "-" * 100_000 + "1"])
def test_code_nested_too_deeply_to_compile_is_told_as_such(source):
    # Python's compiler runs out of recursion or memory here, which is no crash of the worker.
    answer = Session().load([{"index": 0, "label": "submission.py", "source": source}])
    assert answer == {
        "problems": [
            {
                "cell": 0,
                "kind": "syntax_error",
                "line": None,
                "message": "submission.py: the code nests too deeply for Python to read "
                "(brackets or operators inside one another thousands of times); write it flatter.",
            }
        ],
        "defined": [],
    }


def test_a_list_of_chunk_dicts_is_told_plain_a_level_at_a_time(monkeypatch):
    chunks = [
        {"doc_id": "d", "chunk_index": n, "text": "t", "char_start": n, "metadata": {"k": [1]}}
        for n in range(2000)
    ]
    monkeypatch.setattr(worker_main, "is_plain_path", lambda *a: pytest.fail("one path"))
    assert worker_main.is_plain(chunks)
    assert not worker_main.is_plain([*chunks, {"doc_id": ("d",)}])
    assert not worker_main.is_plain([*chunks, {1: "key not a str"}])
    assert not worker_main.is_plain([*chunks, {"score": float("nan")}])


class Record(dict):
    pass


class Word(str):
    pass


PLAIN_OR_NOT = [
    [1, 2.5, None, True, "a"],
    [float("inf")],
    {"a": {"b": {"c": []}}},
    {1: 2},
    [["a"], {"k": [1, 2.5, None]}],
    [("a",)],
    [Record()],
    [Word("x")],
    {"a": Record()},
    [[]] * 3,
    [1, 10**700],
]


@pytest.mark.parametrize("value", PLAIN_OR_NOT, ids=range(len(PLAIN_OR_NOT)))
def test_plain_a_level_at_a_time_is_plain_one_path_at_a_time(value):
    assert worker_main.is_plain(value) == worker_main.is_plain_path(value)


def test_nesting_past_the_depth_limit_is_not_plain_whichever_way_it_is_looked_at():
    deep: list = []
    for _ in range(worker_main.MAX_DEPTH + 2):
        deep = [deep]
    assert not worker_main.is_plain(deep) and not worker_main.is_plain_path(deep)
    shared: list = [1]
    for _ in range(80):  # twice itself at every level: 2**80 paths, a few thousand objects
        shared = [shared, shared]
    assert not worker_main.is_plain(shared)
