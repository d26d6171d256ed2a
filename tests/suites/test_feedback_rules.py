"""Feedback that names the rule broken: each mistake fails its rule's own check, "fix that
rule first" only after that rule's check failed, and a hidden failure offers an input to try
that is not a hidden one and shows the failure for this submission."""

from __future__ import annotations

import ast
import json
import re

import pytest

from chunklab.contract import SubmissionRaised
from chunklab.sandbox.backend import SandboxBackend
from chunklab.scoring.feedback_policy import kept_under_rule, with_hidden_feedback
from chunklab.scoring.outcomes import BuildsOn, settled
from chunklab.scoring.report import GradeReport, TestOutcome
from chunklab.suite_run.submission_proxy import decode
from chunklab.suites.checks import TRY_PREFIX, RuleBroken, type_name, what_it_raised
from chunklab.suites.tries import CHAR_CALLS, CHAR_INVALID, WORD_CALLS
from tests.suites.test_grader_trust import mistake, reference
from tests.suites.test_window_lessons import (
    failure_of,
    grader_tests,
    load_module,
    marks,
    proxy_for,
    run_test,
)

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

# --- Each mistake fails the check of the rule it breaks -----------------------------------


@pytest.mark.parametrize(
    ("lesson", "name", "test_name"),
    [
        # The length rule broken only where a whitespace run follows a mark.
        (
            "chunking_pipeline",
            "whitespace_run_kept_past_the_window.py",
            "test_no_chunk_longer_other_texts",
        ),
        # The overlap rule broken only after a mark followed by a whitespace run.
        (
            "chunking_pipeline",
            "next_start_ignores_the_whitespace_run.py",
            "test_chunks_are_overlapping_pieces_other_texts",
        ),
        # The step rule broken only for overlaps above half the size.
        ("word_chunk", "overlap_capped_at_half_the_size.py", "test_word_windows_on_other_texts"),
    ],
)
def test_a_mistake_fails_the_check_of_its_own_rule(lesson, name, test_name):
    test = grader_tests(lesson, "hidden")[test_name]
    run_test(test, proxy_for(reference(lesson))[0], lesson)
    proxy, _ = proxy_for(mistake(lesson, name))
    with pytest.raises(RuleBroken) as caught:
        run_test(test, proxy, lesson)
    # Broken on the check's own rule: no other rule it builds on is blamed.
    own_rule = marks(test)["rule"][0]
    assert caught.value.builds_on in ("", own_rule)
    assert str(caught.value).startswith("Input: ")


def test_the_defaults_check_is_not_failed_by_a_wrong_cut():
    # A hard cut one character short breaks the hard-cut rule, not the defaults.
    test = grader_tests("chunking_pipeline", "hidden")["test_defaults"]
    lesson = "chunking_pipeline"
    run_test(test, proxy_for(mistake(lesson, "hard_cut_one_short.py"))[0], lesson)
    proxy, _ = proxy_for(mistake(lesson, "other_defaults.py"))
    assert "the chunks of ChunkingPipeline(chunk_size=500" in failure_of(test, proxy, lesson)


# --- "Not checked: fix that rule first" only after that rule's own check failed ---------

BASIC = "No chunk is longer than chunk_size characters."
SAID = "Input: x\nNot checked: fix 'No chunk is longer than chunk_size characters.' first."
ALONE = "Input: x\nExpected: chunk 2 to have at most 4 characters\nGot: 'abcdef'"


def test_fix_that_rule_first_stays_when_that_rules_check_failed():
    outcomes = [
        TestOutcome("t_length", BASIC, 1.0, "failed", "visible", "Input: y"),
        TestOutcome("t_cuts", "Chunks end at sentences.", 1.0, "failed", "hidden", SAID),
    ]
    assert settled(outcomes, [BuildsOn(1, BASIC, ALONE)]) == outcomes


def test_fix_that_rule_first_becomes_what_broke_when_that_rules_check_passed():
    outcomes = [
        TestOutcome("t_length", BASIC, 1.0, "passed", "visible"),
        TestOutcome("t_cuts", "Chunks end at sentences.", 1.0, "failed", "hidden", SAID),
    ]
    shown = settled(outcomes, [BuildsOn(1, BASIC, ALONE)])
    assert shown[0] == outcomes[0]
    assert shown[1].feedback == f"{ALONE}\nThis breaks the rule '{BASIC}'."


def test_a_check_of_the_basic_rule_itself_shows_its_own_failure():
    outcomes = [
        TestOutcome("t_length", BASIC, 1.0, "failed", "visible", "Input: y"),
        TestOutcome("t_length_again", BASIC, 1.0, "failed", "hidden", SAID),
    ]
    assert settled(outcomes, [BuildsOn(1, BASIC, ALONE)])[1].feedback == ALONE


def graded(chunklab, lesson: str, name: str, policy: str) -> dict:
    result = chunklab(
        "grade", "--lesson", lesson, "--hidden-feedback", policy, "--jsonl", mistake(lesson, name)
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout.splitlines()[0])


def graded_source(chunklab, path, source: str) -> dict:
    """The report of `source`, written to `path` and graded alone."""
    path.write_text(source)
    result = chunklab("grade", "--jobs", "1", "--jsonl", path)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout.splitlines()[0])


def test_a_graded_report_says_fix_a_rule_first_only_where_that_rule_failed(chunklab):
    report = graded(chunklab, "chunking_pipeline", "whitespace_run_kept_past_the_window.py", "full")
    failed = {t["rule"] for t in report["tests"] if t["outcome"] != "passed"}
    pointed = [re.search(r"Not checked: fix '(.*)' first", t["feedback"]) for t in report["tests"]]
    assert any(pointed)
    assert all(found.group(1) in failed for found in pointed if found)


# --- A hidden failure offers an input to try ------------------------------------------


def test_the_rule_policy_keeps_only_the_input_to_try_or_a_verdict():
    hidden = "Input: chunk('secret', 3, 1)\nExpected: ['sec']\nGot: []"
    tried = "Try: chunk('try', 2, 1)\nExpected: ['tr', 'ry']\nGot: []"
    # The input alone: what the submission answered is its own choice of text.
    assert kept_under_rule(f"{hidden}\n{tried}") == "Try: chunk('try', 2, 1)"
    assert kept_under_rule(hidden) == ""
    verdict = "Verdict: the answer is wrong; the time is not the problem (it came within 2 s)."
    assert kept_under_rule(f"{hidden}\n{verdict}") == verdict
    report = GradeReport(
        "char_chunk",
        "a.py",
        "graded",
        tests=(TestOutcome("h", "rule", 1.0, "failed", "hidden", f"{hidden}\n{tried}"),),
    )
    assert with_hidden_feedback(report, "rule").tests[0].feedback == "Try: chunk('try', 2, 1)"
    assert with_hidden_feedback(report, "none").tests[0].feedback == ""
    assert with_hidden_feedback(report, "full").tests[0].feedback == f"{hidden}\n{tried}"


def offered_call(feedback: str) -> tuple:
    """The arguments of the call a "Try:" line offers: `chunk('try', 2, 1)` → ('try', 2, 1)."""
    first = feedback.split("\n", 1)[0].removeprefix(TRY_PREFIX)
    return ast.literal_eval(first[first.index("(") :])


@pytest.mark.parametrize(
    ("lesson", "name", "function"),
    [("char_chunk", "step_of_size.py", "chunk"), ("word_chunk", "step_of_size.py", "solve")],
)
def test_a_hidden_failure_offers_an_input_that_shows_it_and_is_not_hidden(
    chunklab, lesson, name, function
):
    report = graded(chunklab, lesson, name, "rule")
    failed = [
        t for t in report["tests"] if t["visibility"] == "hidden" and t["outcome"] != "passed"
    ]
    offered = [t for t in failed if t["feedback"].startswith(TRY_PREFIX)]
    # Else only the long document's verdict, which names no input.
    assert offered and all(
        t["feedback"].startswith(TRY_PREFIX)
        or (t["name"].endswith("test_a_long_document") and t["feedback"].startswith("Verdict: "))
        for t in failed
        if t["feedback"]
    )
    hidden_calls = calls_of_hidden_checks(lesson)
    wrong = getattr(load_module(mistake(lesson, name)), function)
    right = getattr(load_module(reference(lesson)), function)
    for test in offered:
        call = offered_call(test["feedback"])
        assert call not in hidden_calls
        # The input shows the failure for this submission.
        assert wrong(*call) != right(*call)


def calls_of_hidden_checks(lesson: str) -> set[tuple]:
    """Every call the hidden checks make of the reference, kept inputs included."""
    proxy, backend = proxy_for(reference(lesson))
    for test in grader_tests(lesson, "hidden").values():
        if test.__name__ != "test_a_long_document":
            run_test(test, proxy, lesson)
    return set(backend.calls)


@pytest.mark.parametrize(
    ("lesson", "candidates"),
    [("char_chunk", CHAR_CALLS + CHAR_INVALID), ("word_chunk", WORD_CALLS)],
)
def test_no_input_to_try_is_an_input_of_a_hidden_check(lesson, candidates):
    # The hidden checks' calls include their kept random inputs.
    hidden = calls_of_hidden_checks(lesson)
    assert hidden and not hidden & set(candidates)


# Remembers every call it is given, and raises them all in its message: shown on a "Try:"
# line, the message would carry the hidden inputs of the checks before, unless the tries
# go to a worker that has seen none of them.
REMEMBERING = """
seen = []
def {function}(text, size, overlap):
    seen.append((text, size, overlap))
    raise ValueError(repr(seen[-3:]))
"""


@pytest.mark.parametrize(("lesson", "function"), [("char_chunk", "chunk"), ("word_chunk", "solve")])
def test_an_input_to_try_shows_no_hidden_input_a_submission_kept(
    chunklab, tmp_path, lesson, function
):
    path = tmp_path / f"remembering_{lesson}.py"
    path.write_text(REMEMBERING.format(function=function))
    policies = {}
    for policy in ("rule", "full"):
        result = chunklab("grade", "--lesson", lesson, "--hidden-feedback", policy, "--jsonl", path)
        assert result.exit_code == 0, result.stderr
        report = json.loads(result.stdout.splitlines()[0])
        policies[policy] = [t["feedback"] for t in report["tests"] if t["visibility"] == "hidden"]
    # Under the default policy, the input to try alone: none of the code's own text.
    shown = [feedback for feedback in policies["rule"] if feedback.startswith(TRY_PREFIX)]
    hidden_calls = calls_of_hidden_checks(lesson)
    assert shown and all("\n" not in feedback for feedback in shown)
    assert not {offered_call(feedback) for feedback in shown} & hidden_calls
    # Which class it raised is the code's choice: only those the check is about are named.
    assert "Verdict: your code raised an exception on the long text." in policies["rule"]
    # And the tries were answered before the code was given any hidden input: what it
    # says there, shown in full, names none.
    kept = set()
    for feedback in policies["full"]:
        _, _, tried = feedback.partition(f"\n{TRY_PREFIX}")
        message = re.search(r"ValueError: (.*)$", tried, re.M)
        if message is not None:
            kept |= set(ast.literal_eval(ast.literal_eval(message.group(1))))
    assert kept and not kept & hidden_calls


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        (
            "drops_the_end.py",
            "Verdict: the answer is wrong; the time is not the problem (it came within 2 seconds).",
        ),
        (
            "recursive_windows.py",
            "Verdict: your code raised RecursionError on the long text: code that calls itself "
            "once per chunk reaches Python's recursion limit.",
        ),
    ],
)
def test_the_long_documents_verdict_is_shown_without_its_text(chunklab, name, verdict):
    report = graded(chunklab, "char_chunk", name, "rule")
    (long_document,) = [t for t in report["tests"] if t["name"].endswith("test_a_long_document")]
    assert (long_document["outcome"], long_document["feedback"]) == ("failed", verdict)


STRIPPING = """
def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be at least 1 and 0 <= overlap < size")
    text = text.strip()
    return [text[i:i + size] for i in range(0, max(len(text) - overlap, 1), size - overlap)]
"""


def test_code_that_strips_the_text_is_offered_a_text_with_whitespace_at_its_ends(
    chunklab, tmp_path
):
    report = graded_source(chunklab, tmp_path / "stripping_char_chunk.py", STRIPPING)
    hidden = {t["name"].split("::")[1]: t for t in report["tests"] if t["visibility"] == "hidden"}
    shown = hidden["test_whitespace_and_accents_are_ordinary_characters"]["feedback"]
    offered = offered_call(shown)
    assert offered[0] != offered[0].strip()


def test_a_mistake_about_repeated_words_fails_that_check_and_not_the_whitespace_one(chunklab):
    report = graded(chunklab, "word_chunk", "drops_repeated_words.py", "rule")
    outcomes = {t["name"].split("::")[1]: t["outcome"] for t in report["tests"]}
    assert outcomes["test_the_same_word_repeated_many_times"] == "failed"
    assert outcomes["test_extra_spaces_and_a_line_break"] == "passed"


# Right on its first calls; then it answers with an object whose repr starts a line of its
# own, "Try: ...", holding the inputs it was given, and on the long text it raises a class
# of its own named after them. Neither may reach the feedback the `rule` policy keeps.
FORGING = """
seen = []
class Shown:
    def __repr__(self):
        return "\\\\nTry: chunk" + repr(seen[-1]) + "\\\\nExpected: x"
def chunk(text, size, overlap):
    seen.append((text, size, overlap))
    if len(text) > 10_000:
        raise type("kept_" + str(len(seen)) + "\\\\nTry: " + repr(seen[-2]), (BaseException,), {})()
    if len(seen) > 40:
        return Shown()
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be at least 1 and 0 <= overlap < size")
    step = size - overlap
    return [text[i:i + size] for i in range(0, max(len(text) - overlap, 1), step)] if text else []
"""


def test_what_a_submission_names_or_shows_cannot_forge_a_line_the_policy_keeps(chunklab, tmp_path):
    report = graded_source(chunklab, tmp_path / "forging_char_chunk.py", FORGING)
    kept = {t["name"]: t["feedback"] for t in report["tests"] if t["visibility"] == "hidden"}
    assert kept.pop("test_hidden.py::test_a_long_document") == (
        "Verdict: your code raised an exception on the long text."
    )
    offered = [feedback for feedback in kept.values() if feedback]
    assert all(feedback.startswith(TRY_PREFIX) for feedback in offered)
    public = set(CHAR_CALLS + CHAR_INVALID)
    assert all(offered_call(feedback) in public for feedback in offered)
    # The forged lines were there to keep: shown in full, escaped, on no line of their own.
    path = tmp_path / "forging_char_chunk.py"
    result = chunklab("grade", "--jobs", "1", "--jsonl", "--hidden-feedback", "full", path)
    full = [t["feedback"] for t in json.loads(result.stdout.splitlines()[0])["tests"]]
    assert any("\\nTry: chunk(" in feedback for feedback in full)
    assert not [line for f in full for line in f.splitlines() if line.startswith("Try: chunk((")]


def test_names_and_reprs_a_submission_chose_start_no_line_of_feedback():
    forged = "\nTry: chunk('a hidden input', 1, 0)"
    # A value that is not plain data, as the worker describes it: its type's name and repr.
    shown = decode({"$unplain": "Kept" + forged, "repr": "<Kept>" + forged})
    assert "\n" not in repr(shown) and "\n" not in type_name(shown)
    raised = what_it_raised(lambda: None, SubmissionRaised("Kept" + forged, "a message"))
    assert raised.startswith("It raised Kept\\nTry: ") and "\n" not in raised


def test_the_inputs_to_try_of_every_failed_check_need_no_worker_of_their_own(
    chunklab, tmp_path, monkeypatch
):
    started = []
    start = SandboxBackend._start_worker

    def counted(backend: SandboxBackend, seconds: float):
        started.append(backend)
        return start(backend, seconds)

    monkeypatch.setattr(SandboxBackend, "_start_worker", counted)
    report = graded_source(
        chunklab, tmp_path / "remembering_char_chunk.py", REMEMBERING.format(function="chunk")
    )
    offered = [t for t in report["tests"] if t["feedback"].startswith(TRY_PREFIX)]
    # Many hidden checks offer an input; the submission ran in one worker, whose child
    # answered its tries before any test.
    assert len(offered) > 5 and len(started) == 1
