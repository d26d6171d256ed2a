"""Inputs to try for the hidden checks of chunking_pipeline: each one passes its check on the
reference, none is an input of a hidden check, and a graded mistake's report offers one that
really breaks the rule for that mistake."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.checks import TRY_PREFIX, RuleBroken
from chunklab.suites.chunking_pipeline import test_hidden, test_hidden_positions
from chunklab.suites.chunking_pipeline.hidden_cutting import check_cuts
from chunklab.suites.chunking_pipeline.pipeline_tries import Tries
from chunklab.suites.chunking_pipeline.test_visible import Pipeline
from tests.suites.test_feedback_rules import graded
from tests.suites.test_grader_trust import mistake, reference
from tests.suites.test_window_lessons import run_test

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

LESSON = "chunking_pipeline"
DEFAULTS = {"chunk_size": 500, "overlap": 50, "min_chunk_size": 100}
HIDDEN_MODULES = (test_hidden, test_hidden_positions)

# A pipeline's settings, every one written out, and the call made of it: one input.
Key = tuple[tuple[int, ...], str | None, str | None]


def settings_key(args: list[Any], kwargs: dict[str, Any]) -> tuple[int, ...]:
    named = {**DEFAULTS, **dict(zip(DEFAULTS, args, strict=False)), **kwargs}
    return tuple(named[name] for name in DEFAULTS)


def call_key(settings: tuple[int, ...], method: str | None, args: Any) -> Key:
    shown = None if method is None else json.dumps(args, sort_keys=True)
    return settings, method, shown


class RecordingBackend(InProcessBackend):
    """Runs the reference in this process and remembers every input it is given: each method
    call with its pipeline's settings, and each pipeline whose settings were refused."""

    def __init__(self) -> None:
        super().__init__()
        self.settings: dict[int, tuple[int, ...]] = {}
        self.inputs: set[Key] = set()
        self.arguments: list[Any] = []

    def request(self, message: dict) -> dict:
        answer = super().request(message)
        if message["op"] == "new":
            settings = settings_key(message["args"], message["kwargs"])
            self.settings[message["handle"]] = settings
            if "raised" in answer:
                self.inputs.add(call_key(settings, None, None))
        elif message["op"] == "method":
            settings = self.settings[message["handle"]]
            self.inputs.add(call_key(settings, message["name"], message["args"]))
            self.arguments += message["args"]
        return answer


def recording_proxy(path) -> tuple[SubmissionProxy, RecordingBackend]:
    backend = RecordingBackend()
    loaded = backend.request(
        {"op": "load", "cells": [{"index": 0, "label": path.name, "source": path.read_text()}]}
    )
    assert not loaded["problems"], loaded
    return SubmissionProxy(backend), backend


def every_tries() -> dict[str, Tries]:
    return {
        f"{module.__name__.rsplit('.', 1)[-1]}.{name}": value
        for module in HIDDEN_MODULES
        for name, value in vars(module).items()
        if isinstance(value, Tries)
    }


@pytest.fixture(scope="module")
def hidden_inputs() -> set[Key]:
    """Every input the hidden checks give the reference, kept inputs included."""
    proxy, backend = recording_proxy(reference(LESSON))
    for module in HIDDEN_MODULES:
        for name, test in vars(module).items():
            if name.startswith("test_") and name != "test_a_long_document":
                run_test(test, proxy, LESSON)
    return backend.inputs


@pytest.fixture(scope="module")
def inputs_to_try() -> RecordingBackend:
    """Every input to try, each checked on the reference: none may fail it."""
    proxy, backend = recording_proxy(reference(LESSON))
    for name, tries in every_tries().items():
        assert tries.cases, name
        for case in tries.cases:
            try:
                tries.check(proxy, case)
            except RuleBroken as broken:
                pytest.fail(f"{name} fails on the reference with {case!r}:\n{broken}")
    return backend


def test_every_input_to_try_passes_its_check_on_the_reference(inputs_to_try):
    assert len(inputs_to_try.inputs) > 100


def test_no_input_to_try_is_an_input_of_a_hidden_check(hidden_inputs, inputs_to_try):
    assert len(hidden_inputs) > 100
    both = hidden_inputs & inputs_to_try.inputs
    assert not both, sorted(both, key=repr)


def test_the_inputs_to_try_are_short_enough_to_be_shown_whole(inputs_to_try):
    # Feedback shows a call's argument whole up to 120 characters: a longer one, cut in the
    # middle, could not be tried as shown. Only the defaults' texts, of one repeated letter,
    # are longer (their length is shown).
    for argument in inputs_to_try.arguments:
        repeated = isinstance(argument, str) and len(set(argument)) == 1
        assert len(repr(argument)) <= 120 or repeated, argument


# --- A graded mistake's report offers an input that breaks the rule --------------------


@dataclass(frozen=True)
class Offered:
    """The call a "Try:" line offers: a pipeline's settings and, unless the settings
    themselves are the input, the method called with its argument."""

    settings: dict[str, int]
    method: str | None = None
    argument: Any = None

    @property
    def key(self) -> Key:
        args = None if self.method is None else [self.argument]
        return call_key(settings_key([], self.settings), self.method, args)


def offered_call(feedback: str) -> Offered:
    """`ChunkingPipeline(chunk_size=8, overlap=1, min_chunk_size=0).chunk_text('a b')` →
    the settings, 'chunk_text' and 'a b'."""
    line = feedback.split("\n", 1)[0].removeprefix(TRY_PREFIX)
    call = ast.parse(line, mode="eval").body
    assert isinstance(call, ast.Call)
    if isinstance(call.func, ast.Attribute):
        made = call.func.value
        assert isinstance(made, ast.Call)
        (argument,) = call.args
        return Offered(keywords(made), call.func.attr, ast.literal_eval(argument))
    return Offered(keywords(call))


def keywords(call: ast.Call) -> dict[str, int]:
    assert isinstance(call.func, ast.Name) and call.func.id == "ChunkingPipeline"
    assert not call.args
    return {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}


def cuts_broken(any_whitespace: bool) -> Callable[[SubmissionProxy, Offered], bool]:
    def broken(proxy: SubmissionProxy, offered: Offered) -> bool:
        assert offered.method == "chunk_text"
        try:
            check_cuts(
                Pipeline(proxy, **offered.settings), offered.argument, any_whitespace=any_whitespace
            )
        except RuleBroken:
            return True
        return False

    return broken


def metadata_not_the_documents(proxy: SubmissionProxy, offered: Offered) -> bool:
    assert offered.method == "process_document"
    doc = offered.argument
    chunks = Pipeline(proxy, **offered.settings).process_document(doc)
    assert chunks
    return any(chunk["metadata"] != (doc.get("metadata") or {}) for chunk in chunks)


def settings_accepted(proxy: SubmissionProxy, offered: Offered) -> bool:
    assert offered.method is None
    try:
        proxy.ChunkingPipeline(**offered.settings)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    ("name", "test_name", "broken"),
    [
        ("hard_cut_one_short.py", "test_hard_cut_other_texts", cuts_broken(False)),
        ("first_whitespace.py", "test_ends_at_last_whitespace_other_texts", cuts_broken(False)),
        ("first_sentence_end.py", "test_ends_at_last_sentence_end_other_texts", cuts_broken(True)),
        ("metadata_none_passed_through.py", "test_metadata_carried", metadata_not_the_documents),
        ("no_validation.py", "test_chunk_size_must_be_positive_other_settings", settings_accepted),
    ],
)
def test_a_hidden_pipeline_failure_offers_an_input_that_breaks_the_rule(
    chunklab, hidden_inputs, name, test_name, broken
):
    report = graded(chunklab, LESSON, name, "rule")
    (test,) = [t for t in report["tests"] if t["name"].endswith(f"::{test_name}")]
    assert test["outcome"] == "failed"
    assert test["feedback"].startswith(TRY_PREFIX), test["feedback"]
    offered = offered_call(test["feedback"])
    assert offered.key not in hidden_inputs
    # The offered input shows the failure on the mistake, and the reference keeps the rule on it.
    assert broken(recording_proxy(mistake(LESSON, name))[0], offered)
    assert not broken(recording_proxy(reference(LESSON))[0], offered)


def test_under_none_no_input_is_offered(chunklab):
    report = graded(chunklab, LESSON, "first_whitespace.py", "none")
    hidden = [t for t in report["tests"] if t["visibility"] == "hidden"]
    assert any(t["outcome"] == "failed" for t in hidden)
    assert all(t["feedback"] == "" for t in hidden)
