"""The window lessons (char_chunk, word_chunk): their grader suites, stubs and variants.

`chunklab validate` proves the scores (reference full, stub zero, mistakes lose
points); these tests check what it does not: the markers every grader test
carries, the feedback a failure gives, and that the public checks hold the
lesson's worked examples.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

import pytest

from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.checks import TRY_PREFIX, RuleBroken
from tests.suites.sent_calls import calls_sent

# The grader suites' own markers (rule, points, visibility) are registered by the
# grading plugin, not in this test session.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

ROOT = Path(__file__).resolve().parents[2]
LESSONS = {"char_chunk": "chunk", "word_chunk": "solve"}
VISIBILITIES = ("visible", "hidden")

# The worked examples the lesson text gives for word_chunk: (args, chunks).
WORD_EXAMPLES = [
    (("the cat sat on the red mat", 4, 2), ["the cat sat on", "sat on the red", "the red mat"]),
    (("a b c d e", 3, 1), ["a b c", "c d e"]),
    (("a b c d e", 2, 0), ["a b", "c d", "e"]),
    (("  ", 2, 0), []),
]


def suite_module(lesson: str, visibility: str) -> ModuleType:
    return importlib.import_module(f"chunklab.suites.{lesson}.test_{visibility}")


def grader_tests(lesson: str, visibility: str) -> dict[str, object]:
    module = suite_module(lesson, visibility)
    return {name: fn for name, fn in vars(module).items() if name.startswith("test_")}


def marks(fn: object) -> dict[str, tuple]:
    return {mark.name: mark.args for mark in getattr(fn, "pytestmark", [])}


def load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"window_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingBackend(InProcessBackend):
    """Runs a submission in this process and remembers the arguments of every call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple] = []

    def request(self, message: dict) -> dict:
        if message["op"] == "call":
            self.calls.append(tuple(message["args"]))
        return super().request(message)


def proxy_for(path: Path) -> tuple[SubmissionProxy, RecordingBackend]:
    backend = RecordingBackend()
    loaded = backend.request(
        {"op": "load", "cells": [{"index": 0, "label": path.name, "source": path.read_text()}]}
    )
    assert not loaded["problems"], loaded
    return SubmissionProxy(backend), backend


def run_test(fn, proxy: SubmissionProxy, lesson: str) -> None:
    """Call one grader test the way pytest would, with its fixtures."""
    wanted = inspect.signature(fn).parameters
    fixtures = {"submission": proxy, "reference": load_module(ROOT / "solutions" / f"{lesson}.py")}
    fn(**{name: value for name, value in fixtures.items() if name in wanted})


def hidden_part(feedback: str) -> str:
    """A hidden check's feedback on its own input, without the input it offers to try."""
    return feedback.split(f"\n{TRY_PREFIX}", 1)[0]


def failure_of(fn, proxy: SubmissionProxy, lesson: str) -> str:
    with pytest.raises(RuleBroken) as caught:
        run_test(fn, proxy, lesson)
    return str(caught.value)


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_grader_test_has_a_rule_points_and_its_visibility(lesson):
    total = visible_points = 0
    for visibility in VISIBILITIES:
        assert suite_module(lesson, visibility).pytestmark.args == (visibility,)
        tests = grader_tests(lesson, visibility)
        assert tests, f"{lesson} has no {visibility} tests"
        for name, fn in tests.items():
            found = marks(fn)
            rule, points = found.get("rule", ("",))[0], found.get("points", (0,))[0]
            assert isinstance(rule, str) and rule.strip(), f"{name} has no rule text"
            assert rule.rstrip().endswith("."), f"the rule of {name} is not a sentence"
            assert isinstance(points, int) and points >= 1, f"{name} has no whole points"
            total += points
            visible_points += points if visibility == "visible" else 0
    # The public checks are not the grade: answering them alone must stay far from a pass.
    assert total >= 15
    assert visible_points <= total / 3


@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_every_rule_text_is_unique_within_a_suite_file(lesson, visibility):
    rules = [marks(fn)["rule"][0] for fn in grader_tests(lesson, visibility).values()]
    assert len(rules) == len(set(rules))


def test_the_public_word_checks_hold_the_worked_examples():
    reference = load_module(ROOT / "solutions" / "word_chunk.py")
    for args, chunks in WORD_EXAMPLES:
        assert reference.solve(*args) == chunks
    proxy, backend = proxy_for(ROOT / "solutions" / "word_chunk.py")
    for fn in grader_tests("word_chunk", "visible").values():
        run_test(fn, proxy, "word_chunk")
    for args, _ in WORD_EXAMPLES:
        assert args in backend.calls, f"no public check calls solve{args}"


def test_the_public_char_checks_cover_empty_text_short_text_and_bad_settings():
    proxy, backend = proxy_for(ROOT / "solutions" / "char_chunk.py")
    for fn in grader_tests("char_chunk", "visible").values():
        run_test(fn, proxy, "char_chunk")
    calls = backend.calls
    assert any(text == "" for text, _, _ in calls)
    assert any(0 < len(text) <= size for text, size, _ in calls)
    assert any(size <= 0 for _, size, _ in calls)
    assert any(overlap < 0 for _, _, overlap in calls)
    assert any(0 < size <= overlap for _, size, overlap in calls)


def test_a_missing_early_stop_is_shown_with_input_expected_and_got():
    proxy, _ = proxy_for(ROOT / "solutions" / "mistakes" / "char_chunk" / "no_early_stop.py")
    test = grader_tests("char_chunk", "visible")["test_stop_once_a_window_reaches_the_end"]
    assert failure_of(test, proxy, "char_chunk") == (
        "Input: chunk('abcdefg', 3, 1)\n"
        "Expected: ['abc', 'cde', 'efg']\n"
        "Got: ['abc', 'cde', 'efg', 'g']"
    )


def test_split_on_single_spaces_is_shown_with_input_expected_and_got():
    mistake = ROOT / "solutions" / "mistakes" / "word_chunk" / "split_on_single_space.py"
    proxy, _ = proxy_for(mistake)
    test = grader_tests("word_chunk", "hidden")["test_spaces_at_both_ends_with_size_one"]
    assert hidden_part(failure_of(test, proxy, "word_chunk")) == (
        "Input: solve('  hello world  ', 1, 0)\n"
        "Expected: ['hello', 'world']\n"
        "Got: ['', '', 'hello', 'world', '', '']"
    )


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_returned_tuple_fails_the_type_check_by_name(lesson):
    proxy, _ = proxy_for(ROOT / "solutions" / "mistakes" / lesson / "returns_tuple.py")
    test = grader_tests(lesson, "visible")["test_returns_a_list_of_strings"]
    feedback = failure_of(test, proxy, lesson)
    assert feedback.startswith(f"Input: {LESSONS[lesson]}(")
    assert "Expected: a list of strings" in feedback
    assert "Got: <a tuple: (" in feedback


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_random_text_failure_names_one_simple_input(lesson):
    proxy, _ = proxy_for(ROOT / "solutions" / "mistakes" / lesson / "no_early_stop.py")
    [test] = [fn for name, fn in grader_tests(lesson, "hidden").items() if "random_texts" in name]
    feedback = failure_of(test, proxy, lesson)
    assert feedback.startswith(f"Input: {LESSONS[lesson]}(")
    assert "\nExpected: [" in feedback and "\nGot: [" in feedback


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_check_fails_the_stub_with_feedback(lesson):
    proxy, _ = proxy_for(ROOT / "exercises" / f"{lesson}.py")
    for visibility in VISIBILITIES:
        for fn in grader_tests(lesson, visibility).values():
            feedback = failure_of(fn, proxy, lesson)
            assert feedback.startswith(f"Input: {LESSONS[lesson]}(")
            assert "NotImplementedError" in feedback


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_stub_defines_only_the_function_with_its_signature(lesson):
    stub = load_module(ROOT / "exercises" / f"{lesson}.py")
    name = LESSONS[lesson]
    defined = [key for key in vars(stub) if not key.startswith("__")]
    assert defined == [name]
    fn = getattr(stub, name)
    assert list(inspect.signature(fn).parameters) == ["text", "size", "overlap"]
    assert "rules the graders check" in (fn.__doc__ or "")
    with pytest.raises(NotImplementedError):
        fn("some text", 2, 1)


@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("kind", ["mistakes", "alternatives"])
def test_every_variant_says_on_its_first_line_what_it_is(lesson, kind):
    label = {"mistakes": "# Mistake: ", "alternatives": "# Alternative: "}[kind]
    files = sorted((ROOT / "solutions" / kind / lesson).glob("*.py"))
    assert len(files) >= (4 if kind == "alternatives" else 7)
    for path in files:
        first = path.read_text().splitlines()[0]
        assert first.startswith(label) and len(first) > len(label), path.name
        assert callable(getattr(load_module(path), LESSONS[lesson], None)), path.name


# Hidden checks of several fixed inputs: their calls go to the submission together.
CHECKS_SENT_AHEAD = [
    ("char_chunk", "test_whitespace_and_accents_are_ordinary_characters", 8),
    ("char_chunk", "test_one_chunk_with_other_texts", 5),
    ("char_chunk", "test_invalid_settings_raise_even_for_an_empty_text", 4),
    ("char_chunk", "test_invalid_settings_raise_even_for_a_short_text", 3),
    ("char_chunk", "test_empty_text_with_other_settings", 3),
    ("char_chunk", "test_smallest_size_and_largest_overlap", 3),
    ("word_chunk", "test_no_words_with_other_settings", 3),
    ("word_chunk", "test_unicode_whitespace_separates_words", 2),
    ("word_chunk", "test_returns_a_list_of_strings_on_other_inputs", 2),
    ("word_chunk", "test_one_chunk_holds_everything", 2),
    ("word_chunk", "test_fewer_words_than_size", 2),
    ("word_chunk", "test_punctuation_and_capital_letters_are_kept", 3),
    ("word_chunk", "test_the_same_word_repeated_many_times", 2),
    ("word_chunk", "test_a_tab_between_words", 2),
]


@pytest.mark.parametrize(
    ("lesson", "name", "calls"), CHECKS_SENT_AHEAD, ids=[name for _, name, _ in CHECKS_SENT_AHEAD]
)
def test_checks_of_several_inputs_send_their_calls_ahead(lesson, name, calls):
    check = grader_tests(lesson, "hidden")[name]
    solution = ROOT / "solutions" / f"{lesson}.py"
    wanted = inspect.signature(check).parameters
    reference = (load_module(solution),) if "reference" in wanted else ()
    assert calls_sent(check, solution, *reference) == (0, calls)
