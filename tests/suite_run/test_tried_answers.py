"""The inputs to try: every call of their searches is asked before any hidden check."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chunklab.commands.check import check_source
from chunklab.contract import Backend, ProtocolBroken
from chunklab.kit import find_kit, load_reference
from chunklab.lessons import get_lesson
from chunklab.reading.read import read_submission
from chunklab.sandbox.answer_shape import checked_answer, expected_of
from chunklab.sandbox.limits import Limits
from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.plugin import GradingPlugin
from chunklab.suite_run.pytest_run import run_suite
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suite_run.tried_answers import AnswerNotAsked, asked_first, calls_to_ask_first
from chunklab.suites.char_chunk import test_hidden as char_hidden
from chunklab.suites.checks import RuleBroken
from chunklab.suites.chunking_pipeline import test_hidden as pipeline_hidden
from chunklab.suites.chunking_pipeline import test_hidden_positions as pipeline_positions
from chunklab.suites.tries import CHAR_CALLS, CHAR_INVALID

KIT = find_kit()
CHAR = get_lesson("char_chunk")
PIPELINE = get_lesson("chunking_pipeline")


class CountedBackend(Backend):
    """A submission in this process, counting the calls that reach it."""

    def __init__(self, source: str) -> None:
        self.inner = InProcessBackend()
        loaded = self.inner.request(
            {"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]}
        )
        assert loaded["problems"] == []
        self.calls = 0

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        return self.inner.request(message)


def try_lines(outcomes: list) -> dict[str, str]:
    return {
        o.name: o.feedback.rpartition("\nTry: ")[2].split("\n")[0]
        for o in outcomes
        if "\nTry: " in o.feedback
    }


# Right on the inputs to try until it has been given any other input; wrong (one chunk
# lost) on every input after that. Its process keeps what it was given, as code that
# keeps it in a file, or notes how long it took on the clock, can.
TELLS_WHAT_IT_WAS_GIVEN = """
TRIES = {tries!r}
given_another = False

def right(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("bad settings")
    chunks, start = [], 0
    while text:
        chunks.append(text[start:start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks

def chunk(text, size, overlap):
    global given_another
    if (text, size, overlap) not in TRIES:
        given_another = True
    chunks = right(text, size, overlap)
    return chunks[:-1] if given_another and len(chunks) > 1 else chunks
"""


def test_what_a_search_finds_cannot_depend_on_the_inputs_given_before():
    # The code fails hidden checks, and fails an input to try only once it has been
    # given another input. Asked before any check, the inputs to try all pass: no search
    # finds one, whatever the hidden inputs told the code.
    tries = {tuple(call) for call in (*CHAR_CALLS, *CHAR_INVALID)}
    backend = CountedBackend(TELLS_WHAT_IT_WAS_GIVEN.format(tries=tries))
    outcomes = run_suite(CHAR, SubmissionProxy(backend), reference=load_reference(KIT, CHAR))
    failed_hidden = [o for o in outcomes if o.visibility == "hidden" and o.outcome != "passed"]
    assert len(failed_hidden) >= 5
    assert try_lines(outcomes) == {}


# Loses the last chunk of every text of more than one.
LOSES_THE_LAST_CHUNK = """
def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("bad settings")
    chunks, start = [], 0
    while start + size < len(text):
        chunks.append(text[start:start + size])
        start += size - overlap
    return chunks if chunks or not text else [text]
"""


def test_the_searches_after_the_tests_send_no_call_to_the_submission(monkeypatch):
    backend = CountedBackend(LOSES_THE_LAST_CHUNK)
    counted: list[int] = []
    searched = GradingPlugin.try_offers

    def counting(self: GradingPlugin, key: str, proxy: SubmissionProxy) -> None:
        counted.append(backend.calls)
        searched(self, key, proxy)
        counted.append(backend.calls)

    monkeypatch.setattr(GradingPlugin, "try_offers", counting)
    outcomes = run_suite(CHAR, SubmissionProxy(backend), reference=load_reference(KIT, CHAR))
    found = try_lines(outcomes)
    stop_at_the_end = found["test_hidden.py::test_stop_at_the_end_on_other_texts"]
    assert stop_at_the_end == "chunk('abcdefghi', 3, 0)"
    assert len(counted) == 2 and counted[0] == counted[1]


def test_a_lesson_s_tries_are_asked_in_one_message_before_its_first_test(monkeypatch):
    backend = CountedBackend(LOSES_THE_LAST_CHUNK)
    asked: list[tuple[int, int]] = []
    many = backend.request_many

    def noting(messages: list[dict[str, Any]]) -> list:
        asked.append((backend.calls, len(messages)))
        return many(messages)

    monkeypatch.setattr(backend, "request_many", noting)
    run_suite(CHAR, SubmissionProxy(backend), reference=load_reference(KIT, CHAR))
    distinct = {repr(call) for call in (*CHAR_CALLS, *CHAR_INVALID)}
    assert asked[0] == (0, len(distinct))


def module_of(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "mistake",
    [
        "modifies_metadata",
        "batch_empties_the_callers_list",
        "no_validation",
        "semicolon_ends_a_sentence",
        "char_start_from_find",
    ],
)
def test_every_call_a_pipeline_search_makes_was_asked_first(mistake):
    # The calls are found by making them of the reference; a search on code that answers
    # wrong may go another way. Each search, on every input it may try, of known
    # mistakes of each kind, finds every answer it asks for.
    reference = load_reference(KIT, PIPELINE)
    tried = list({id(t): t for t in (*pipeline_hidden.TRIED, *pipeline_positions.TRIED)}.values())
    calls = calls_to_ask_first(tuple(tried), reference, SubmissionProxy)
    path = KIT.root / "solutions" / "mistakes" / "chunking_pipeline" / f"{mistake}.py"
    proxy = SubmissionProxy(InProcessBackend(dict(vars(module_of(path)))))
    proxy.ask_tries_first(calls)
    proxy.answer_from_tries()
    broken = 0
    for inputs in tried:
        for case in inputs.cases:
            try:
                inputs.check(proxy, case)
            except RuleBroken:
                broken += 1
            except AnswerNotAsked:
                pytest.fail(f"{case!r} asked for a call that was not asked first")
    assert broken > 0


def test_the_char_chunk_tries_are_its_every_input_to_try():
    assert [(t.name, t.calls) for t in char_hidden.TRIED] == [
        ("chunk", (*CHAR_CALLS, *CHAR_INVALID))
    ]


def test_the_arguments_a_call_left_come_only_with_a_call_that_asked_for_them():
    asked = {"op": "method", "name": "f", "handle": 1, "inputs": "k", "left": True}
    answer = {"ok": 1, "inputs": "a" * 128, "left": {"ok": [[{"k": 2}], {}]}}
    assert checked_answer(answer, expected_of(asked)) == answer
    with pytest.raises(ProtocolBroken):
        checked_answer(answer, expected_of({**asked, "left": False}))
    with pytest.raises(ProtocolBroken):
        checked_answer({**answer, "left": {"ok": 1, "extra": 2}}, expected_of(asked))


def test_the_answers_to_the_tries_fit_their_calls_or_say_they_were_stopped():
    calls = [{"op": "call", "name": "f", "args": [], "kwargs": {}}] * 2
    expected = expected_of({"op": "tries", "calls": calls, "seconds": 0.1})
    for fine in ({"answers": [{"ok": 1}, {"stopped": True}]}, {"answers": [{"stopped": True}]}):
        assert checked_answer(fine, expected) == fine
    for broken in (
        {"answers": [{"stopped": False}]},
        {"answers": [{"ok": 1}, {"ok": 2}, {"ok": 3}]},
        {"answers": [{"ok": 1}, {"handle": 3}]},
        {"answers": [{"ok": 1}], "more": 1},
    ):
        with pytest.raises(ProtocolBroken):
            checked_answer(broken, expected)


def test_objects_given_the_same_number_twice_are_asked_as_two_and_alike_ones_once():
    # Calls noted ahead of two checks may number their objects alike.
    def made(handle: int, size: int) -> dict[str, Any]:
        return {"op": "new", "name": "P", "args": [size], "kwargs": {}, "handle": handle}

    def cut(handle: int, text: str) -> dict[str, Any]:
        return {"op": "method", "name": "cut", "args": [text], "kwargs": {}, "handle": handle}

    noted = [made(1, 4), cut(1, "a"), made(1, 5), cut(1, "a"), made(1, 4), cut(1, "a")]
    asked = asked_first(noted)
    assert asked.messages == (made(1, 4), cut(1, "a"), made(2, 5), cut(2, "a"))
    assert asked.objects == 2


# Leaves out any chunk it has produced before, in any call: what it was given before
# changes what it answers.
SKIPS_CHUNKS_SEEN_BEFORE = """
seen = set()

def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("bad settings")
    chunks, start = [], 0
    while start < len(text):
        if text[start:start + size] not in seen:
            seen.add(text[start:start + size])
            chunks.append(text[start:start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
"""


def test_what_the_inputs_to_try_leave_in_a_process_reaches_no_test(chunklab, tmp_path):
    # Asked in a worker of their own, ended before the tests: the visible points are the
    # self-check's, which asks no input to try.
    path = tmp_path / "skips_char_chunk.py"
    path.write_text(SKIPS_CHUNKS_SEEN_BEFORE)
    result = chunklab("grade", "--jobs", "1", "--jsonl", path)
    graded = json.loads(result.stdout.splitlines()[0])
    visible = {t["name"]: t["score"] for t in graded["tests"] if t["visibility"] == "visible"}
    checked = check_source(read_submission(path, "char_chunk"), Limits(), sandbox=False)
    assert visible == {t.name: t.score for t in checked.tests}
    assert 0 < sum(visible.values()) < checked.max_score


# Right answers, from code that loses its last chunk on texts of more than one; what each
# try call does besides is `{in_try}`.
ON_ITS_TRIES = """
import os

def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("bad settings")
    if text == "try this":
{in_try}
    chunks, start = [], 0
    while start + size < len(text):
        chunks.append(text[start:start + size])
        start += size - overlap
    return chunks if chunks or not text else [text]
"""
# An answer to the tries written to every file the process holds open: the worker's
# answers among them, were they there (the grader would take it for the worker's, and
# the worker's own for the next call's).
ANSWERS_EVERYWHERE = """
        for number in range(3, 64):
            try:
                os.write(number, b'{"answers": []}\\n')
            except OSError:
                pass
"""


def test_what_a_try_call_writes_to_the_workers_files_reaches_no_test(chunklab, tmp_path):
    scores = {}
    for name, in_try in (("writes", ANSWERS_EVERYWHERE), ("oracle", "        pass\n")):
        path = tmp_path / f"{name}_char_chunk.py"
        path.write_text(ON_ITS_TRIES.format(in_try=in_try))
        report = json.loads(chunklab("grade", "--jobs", "1", "--jsonl", path).stdout)
        scores[name] = {t["name"]: (t["outcome"], t["score"]) for t in report["tests"]}
    assert scores["writes"] == scores["oracle"]
    assert 0 < sum(score for _, score in scores["oracle"].values()) < 37
