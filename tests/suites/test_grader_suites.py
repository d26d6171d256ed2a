"""What every lesson's grader suite promises beyond scores: public checks are not the grade,
checks build on basic rules, the grading side keeps the algorithm, feedback reads well."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunklab.authoring.build_public_cuts import public_cuts_text
from chunklab.authoring.bundle import write_bundle
from chunklab.authoring.validation import AT_MOST, Expectation, Verdict, judge, weak_figures
from chunklab.contract import CallTimedOut
from chunklab.kit import SUITES_DIR, find_kit, load_reference
from chunklab.kit_texts import DIGESTS, LONG_LENGTH, SHORT_LENGTH, digest_of, make_text
from chunklab.lessons import LESSONS, get_lesson
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport, TestOutcome
from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.pytest_run import run_suite
from chunklab.suite_run.submission_proxy import NotPlainData, SubmissionProxy
from chunklab.suite_run.suite_contents import suite_contents
from chunklab.suites.char_chunk import test_hidden as char_hidden
from chunklab.suites.checks import (
    RuleBroken,
    building_on,
    expect_raises,
    expect_result,
    fail,
    result_of,
    shorten,
)
from chunklab.suites.chunking_pipeline import test_hidden as pipeline_hidden
from chunklab.suites.chunking_pipeline import test_visible as pipeline_visible
from chunklab.suites.long_texts import (
    LONG_DOCUMENT_RULE,
    LONG_TEXT_SECONDS,
    expect_within,
    long_text,
)
from chunklab.suites.word_chunk import test_hidden as word_hidden
from tests.conftest import LESSON_IDS

KIT = find_kit()


def rules_in(lesson: str, file_name: str) -> set[str]:
    tests = suite_contents(get_lesson(lesson)).tests
    return {test.rule for test in tests if test.path.name == file_name}


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_every_public_rule_is_checked_again_by_a_hidden_test(lesson):
    public = rules_in(lesson, "test_visible.py")
    hidden = rules_in(lesson, "test_hidden.py")
    assert public and public <= hidden, sorted(public - hidden)


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_every_lesson_has_the_long_document_rule_in_the_specs_terms(lesson):
    texts = [rule.text for rule in suite_contents(get_lesson(lesson)).rules()]
    long_rules = [text for text in texts if "200,000 characters" in text]
    assert long_rules == [LONG_DOCUMENT_RULE]
    assert "million" not in " ".join(texts)
    for words in ("no recursion limit", "ten times longer", "CPU time", "never the square"):
        assert words in LONG_DOCUMENT_RULE


def test_the_rules_other_checks_build_on_are_rules_of_their_suites():
    def texts(lesson: str) -> set[str]:
        return {rule.text for rule in suite_contents(get_lesson(lesson)).rules()}

    assert char_hidden.COUNT_RULE in texts("char_chunk")
    assert word_hidden.COUNT_RULE in texts("word_chunk")
    assert {pipeline_visible.LENGTH_RULE, pipeline_visible.PIECES_RULE} <= texts(
        "chunking_pipeline"
    )


def test_the_public_cut_tables_are_up_to_date():
    shipped = pipeline_visible.PUBLIC_CUTS_FILE.read_text(encoding="utf-8")
    assert shipped == public_cuts_text(), "run python -m chunklab.authoring.build_public_cuts"


def test_the_student_bundle_leaves_the_cutting_algorithm_out(tmp_path):
    files = write_bundle(KIT, tmp_path / "bundle")
    names = {path.name for path in files}
    assert "test_visible.py" in names and "public_cuts.json" in names
    assert "hidden_cutting.py" not in names
    shipped = "\n".join(p.read_text(encoding="utf-8") for p in files if p.suffix == ".py")
    assert "def allowed_ends" not in shipped and "def ends_table" not in shipped


def test_a_check_built_on_a_broken_rule_says_to_fix_that_rule_first():
    def broken() -> None:
        fail(given="chunk('abc', 2, 1)", expected="2 chunks", got=["abc"])

    with pytest.raises(RuleBroken) as caught:
        building_on("The count rule.", broken)
    assert str(caught.value) == (
        "Input: chunk('abc', 2, 1)\nNot checked: fix 'The count rule.' first."
    )


def test_an_exception_from_the_submission_is_shown_as_it_is_under_every_rule():
    def chunk(text, size, overlap):
        raise NotImplementedError("not yet")

    with pytest.raises(RuleBroken) as caught:
        building_on("The count rule.", lambda: expect_result(chunk, ("abc", 2, 1), ["ab"]))
    assert str(caught.value) == (
        "Input: chunk('abc', 2, 1)\nIt raised NotImplementedError: 'not yet'"
    )


def test_long_values_are_shortened_in_the_middle_each_on_its_own_length():
    # A value that is not a list of chunks (lists are shown by their first difference).
    def chunk(text, size, overlap):
        return "x"

    expected = " ".join(f"piece {n}" for n in range(100))
    with pytest.raises(RuleBroken) as caught:
        expect_result(chunk, ("t", 1, 0), expected)
    message = str(caught.value)
    shown = message.split("\nExpected: ", 1)[1].split("\nGot: ")[0]
    assert shown.startswith("'piece 0 piece 1") and shown.endswith("piece 98 piece 99'")
    assert re.search(r"\.\.\.\[\d+ characters left out\]\.\.\.", shown)
    assert message.endswith("\nGot: 'x'")
    assert len(shorten("y" * 10_000)) < 300


def test_values_that_print_alike_are_told_apart_by_their_type():
    class Text(str):
        pass

    def chunk(text, size, overlap):
        return [Text("ab")]

    with pytest.raises(RuleBroken) as caught:
        expect_result(chunk, ("ab", 2, 0), ["ab"])
    assert str(caught.value) == (
        "Input: chunk('ab', 2, 0)\nExpected: ['ab']\nGot: ['ab']\n"
        "They print the same, but item[0] is a Text, not a str."
    )


def test_a_failure_can_show_the_chunk_before_the_broken_one():
    with pytest.raises(RuleBroken) as caught:
        fail(given="x", expected="y", got="chunk 2", before="chunk 1")
    assert str(caught.value) == (
        "Input: x\nExpected: y\nGot: 'chunk 2'\nThe chunk before it: 'chunk 1'"
    )


def test_a_pipeline_timeout_names_the_settings_and_the_input():
    def chunk_text(text):
        raise CallTimedOut(f"Input: chunk_text({text!r})\nYour code did not finish in time.")

    call = pipeline_visible.named(chunk_text, "ChunkingPipeline(chunk_size=5).chunk_text")
    with pytest.raises(CallTimedOut) as caught:
        call("abc def")
    assert str(caught.value) == (
        "Input: ChunkingPipeline(chunk_size=5).chunk_text('abc def')\n"
        "Your code did not finish in time."
    )


def test_the_long_document_time_is_the_calls_own_limit_not_a_clock_here():
    # Each long-document test states its calls' own limit; the sandbox keeps it.
    for lesson in ("char_chunk", "word_chunk", "chunking_pipeline"):
        source = (SUITES_DIR / lesson / "test_hidden.py").read_text()
        block = source[: source.index("def test_a_long_document")].rsplit("\n\n\n", 1)[-1]
        assert "@pytest.mark.call_seconds(LONG_TEXT_SECONDS)" in block, lesson
    calls: list[int] = []
    expect_within(LONG_TEXT_SECONDS, lambda: calls.append(1), given="chunk('...', 10, 2)")
    assert calls == [1]  # asked once: no retry, no clock


def test_the_long_text_is_the_same_every_time_and_holds_every_kind_of_gap():
    text, short = long_text(), long_text(SHORT_LENGTH)
    assert len(text) == LONG_LENGTH == 10 * len(short) and text.startswith(short)
    assert digest_of(make_text(LONG_LENGTH)) == DIGESTS[text.name] == digest_of(text)
    for gap in ("\n", "\t", ". ", "! ", "? ", "; ", "Mr. "):
        assert gap in short


def weak_verdict(name: str, score: float, most: float) -> Verdict:
    case = Expectation(get_lesson("char_chunk"), "mistake", Path(name), AT_MOST, "never cuts")
    tests = (
        TestOutcome("a", "r", score, "passed", "hidden"),
        TestOutcome("b", "r", most - score, "failed", "hidden"),
    )
    return judge(case, GradeReport("char_chunk", name, "graded", tests, max_score=most))


def test_a_non_chunker_may_score_at_most_two_fifths():
    assert weak_verdict("non_chunker_x.py", 14, 37).ok
    too_many = weak_verdict("non_chunker_x.py", 15, 37)
    assert not too_many.ok
    assert too_many.detail == "never cuts | 41% of the points: TOO MANY"


def test_the_highest_weak_scores_are_shown_per_lesson():
    verdicts = [
        weak_verdict("non_chunker_a.py", 10, 37),
        weak_verdict("non_chunker_b.py", 14, 37),
        weak_verdict("public_only_c.py", 11, 37),
    ]
    assert weak_figures(verdicts) == (
        "== weak submissions (each kind may score at most 40%) ==\n"
        "char_chunk: highest non-chunker 14/37 (38%), highest public-only 11/37 (30%)\n"
    )


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_every_lesson_has_non_chunkers_and_a_public_only_answer(lesson):
    names = [path.name for path in KIT.mistakes(get_lesson(lesson)).glob("*.py")]
    assert sum(name.startswith("non_chunker_") for name in names) >= 3
    assert sum(name.startswith("public_only_") for name in names) >= 1


class OutOfMemoryBackend:
    """Answers every call as a worker does when the submission ran out of memory."""

    limits = Limits(memory_mb=256)

    def request(self, message: dict) -> dict:
        if message["op"] == "new":
            return {"handle": message["handle"]}
        return {"raised": {"type": "MemoryError", "builtin": "MemoryError", "message": ""}}


def test_running_out_of_memory_is_said_in_words_with_the_limit():
    proxy = SubmissionProxy(OutOfMemoryBackend())
    with pytest.raises(RuleBroken) as caught:
        result_of(proxy.chunk, ("abc", 2, 1))
    assert str(caught.value) == (
        "Input: chunk('abc', 2, 1)\nIt ran out of memory: it used more than 256 MB (MemoryError)."
    )
    with pytest.raises(RuleBroken) as caught:
        expect_raises(proxy.chunk, ("abc", 0, 1), ValueError)
    assert str(caught.value).endswith(
        "Got: It ran out of memory: it used more than 256 MB (MemoryError)."
    )
    pipe = pipeline_visible.Pipeline(proxy, chunk_size=2)
    with pytest.raises(RuleBroken) as caught:
        pipe.chunk_text("abc")
    assert str(caught.value) == (
        "Input: ChunkingPipeline(chunk_size=2).chunk_text('abc')\n"
        "It ran out of memory: it used more than 256 MB (MemoryError)."
    )


def test_a_chunk_that_ends_in_the_wrong_place_is_shown_after_the_chunk_before_it():
    text = "One. Two. Three. Four."
    chunks, starts = ["One. ", "Two. Thr", "ee. Four."], [0, 5, 13]
    allowed = {0: {5: "sentence"}, 5: {10: "sentence"}}
    with pytest.raises(RuleBroken) as caught:
        pipeline_visible.check_endings(text, 10, chunks, starts, "chunk_text(...)", allowed.get)
    message = str(caught.value)
    assert message.startswith("Input: chunk_text(...)\nExpected: chunk 1 (cut from character 5;")
    assert message.endswith("\nGot: 'Two. Thr'\nThe chunk before it: 'One. '")


def test_a_dict_subclass_is_refused_with_the_reason():
    chunk = NotPlainData("OrderedDict", "OrderedDict({'doc_id': 'd'})")
    with pytest.raises(RuleBroken) as caught:
        pipeline_visible.expect_chunk_dicts([chunk], "process_document(...)")
    assert str(caught.value) == (
        "Input: process_document(...)\nExpected: chunk 0 to be a plain dict (dict itself, not a "
        "subclass such as OrderedDict: chunks are plain records)\n"
        "Got: <an OrderedDict: OrderedDict({'doc_id': 'd'})>"
    )


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_each_public_only_answer_passes_every_public_check(lesson):
    # Else it would not show what answering the public checks alone is worth.
    for path in KIT.mistakes(get_lesson(lesson)).glob("public_only_*.py"):
        backend = InProcessBackend()
        cells = [{"index": 0, "label": path.name, "source": path.read_text()}]
        assert backend.request({"op": "load", "cells": cells})["problems"] == []
        outcomes = run_suite(get_lesson(lesson), SubmissionProxy(backend), visible_only=True)
        assert outcomes and all(o.outcome == "passed" for o in outcomes), path.name


def test_the_random_pipeline_texts_all_need_several_chunks():
    from chunklab.suites.chunking_pipeline import test_hidden as pipeline_hidden

    cases = [*pipeline_hidden.RANDOM_TEXTS, *pipeline_hidden.RANDOM_DROPS]
    assert len(cases) == 40
    for text, (chunk_size, overlap), *_ in cases:
        assert len(text) > chunk_size > overlap >= 0


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_no_call_is_written_out_for_feedback_while_the_checks_pass(lesson, monkeypatch):
    # A class makes hundreds of thousands of calls: the text of each one is made only
    # for a check that fails, never for one that passes.
    def refused(*args: object, **kwargs: object) -> str:
        raise AssertionError("a call's text was made for a check that passed")

    monkeypatch.setattr("chunklab.suites.checks.named_call_text", refused)
    for module in (pipeline_visible, pipeline_hidden):
        monkeypatch.setattr(module, "plain", refused)  # a returned value written out
    chosen = get_lesson(lesson)
    backend = InProcessBackend()
    source = KIT.solution(chosen).read_text()
    backend.request({"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]})
    outcomes = run_suite(chosen, SubmissionProxy(backend), reference=load_reference(KIT, chosen))
    assert [o.name for o in outcomes if o.outcome != "passed"] == []
