"""The chunking_pipeline grader suite itself: markers, rule texts, feedback, repeatability.

A validation run already proves the reference gets full marks, the stub zero and every
known mistake less; these tests cover what it does not look at.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from chunklab.contract import CallTimedOut
from chunklab.kit import find_kit, load_reference
from chunklab.kit_texts import make_text
from chunklab.lessons import get_lesson
from chunklab.scoring.report import TestOutcome
from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.pytest_run import run_suite
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.checks import RuleBroken
from chunklab.suites.chunking_pipeline import (
    hidden_cutting,
    test_hidden,
    test_hidden_positions,
    test_visible,
)
from chunklab.suites.chunking_pipeline.hidden_cutting import check_cuts
from chunklab.suites.chunking_pipeline.test_hidden import LONG_SETTINGS, reference_chunks
from chunklab.suites.chunking_pipeline.test_hidden_positions import check_all, every_place
from chunklab.suites.chunking_pipeline.test_visible import CHUNK_KEYS, keep_all, named
from chunklab.suites.chunking_pipeline.text_scans import TextScan
from chunklab.suites.long_texts import long_text
from tests.suites.sent_calls import calls_sent

LESSON = get_lesson("chunking_pipeline")
KIT = find_kit()
REFERENCE = load_reference(KIT, LESSON)


def grade_source(source: str, label: str = "submission.py") -> list[TestOutcome]:
    backend = InProcessBackend()
    loaded = backend.request(
        {"op": "load", "cells": [{"index": 0, "label": label, "source": source}]}
    )
    assert loaded["problems"] == []
    return run_suite(LESSON, SubmissionProxy(backend), reference=REFERENCE)


def overriding(methods: str, before: str = "") -> str:
    """The reference, then `before`, then a subclass of its pipeline with `methods` (source
    indented as a class body) in place of the reference's."""
    reference = KIT.solution(LESSON).read_text()
    return f"{reference}\n\n{before}class ChunkingPipeline(ChunkingPipeline):\n{methods}"


def grade_file(path: Path) -> list[TestOutcome]:
    return grade_source(path.read_text(), str(path))


def by_name(outcomes: list[TestOutcome]) -> dict[str, TestOutcome]:
    return {outcome.name: outcome for outcome in outcomes}


@pytest.fixture(scope="module")
def reference_outcomes() -> list[TestOutcome]:
    return grade_file(KIT.solution(LESSON))


def test_every_test_has_a_rule_whole_points_and_the_visibility_of_its_file(reference_outcomes):
    assert reference_outcomes
    for outcome in reference_outcomes:
        file_name = outcome.name.split("::")[0]
        # test_hidden.py, or a further module of hidden checks such as test_hidden_positions.py.
        kind = file_name.removeprefix("test_").removesuffix(".py").split("_")[0]
        assert kind in ("visible", "hidden"), outcome.name
        assert outcome.visibility == kind, outcome.name
        assert outcome.rule.strip() and outcome.rule.endswith("."), outcome.name
        assert outcome.max_score >= 1 and outcome.max_score == int(outcome.max_score)
        assert outcome.outcome == "passed", (outcome.name, outcome.feedback)
    total = sum(outcome.max_score for outcome in reference_outcomes)
    visible = sum(o.max_score for o in reference_outcomes if o.visibility == "visible")
    # The public checks are not the grade: answering them alone must stay far from a pass.
    assert total >= 25
    assert visible <= total / 3


def test_rule_texts_are_unique_within_a_suite_file(reference_outcomes):
    for visibility in ("visible", "hidden"):
        rules = [o.rule for o in reference_outcomes if o.visibility == visibility]
        assert len(set(rules)) == len(rules)


def test_feedback_names_input_expected_and_got():
    outcomes = by_name(grade_file(KIT.mistakes(LESSON) / "metadata_none_passed_through.py"))
    failed = outcomes["test_hidden.py::test_metadata_carried"]
    assert failed.outcome == "failed"
    assert failed.feedback == (
        "Input: ChunkingPipeline(chunk_size=40, overlap=5, min_chunk_size=0).process_document("
        "{'id': 'n', 'title': 'T', 'body': 'The c ...[186 characters left out]... Was the "
        "cat sad? No. It slept at last.'}), on a pipeline that had already answered 1 other "
        "call\n"
        "Expected: chunk 0's metadata to be {}\n"
        "Got: None\n"
        # A public or made-up input that breaks the same rule, the part the default
        # hidden-feedback policy keeps.
        "Try: ChunkingPipeline(chunk_size=8, overlap=1, min_chunk_size=0).process_document("
        "{'id': 'try', 'title': 'T', 'body': 'Go on. Stop! Why? Fine.'})\n"
        "Expected: chunk 0's metadata to be {}\n"
        "Got: None"
    )


def test_a_returned_tuple_fails_the_type_check_with_feedback():
    source = overriding(
        "    def chunk_text(self, text):\n        return tuple(super().chunk_text(text))\n"
    )
    outcomes = by_name(grade_source(source))
    failed = outcomes["test_visible.py::test_hard_cut_without_whitespace"]
    assert failed.outcome == "failed"
    assert failed.feedback.startswith(
        "Input: ChunkingPipeline(chunk_size=30, overlap=5, min_chunk_size=0).chunk_text("
    )
    assert "\nExpected: a list of str\nGot: <a tuple: ('abcdefghijklmnopqrstuvwxyzabcd', " in (
        failed.feedback
    )
    # process_document does not go through chunk_text here, so it still passes.
    assert outcomes["test_visible.py::test_document_chunk_fields"].outcome == "passed"


def test_grading_twice_gives_the_same_outcomes():
    # A mistake that fails a property test: the random examples must be the same each run.
    path = KIT.mistakes(LESSON) / "only_period_and_space.py"
    first, second = grade_file(path), grade_file(path)
    assert first == second
    assert by_name(first)["test_hidden.py::test_random_texts_follow_cutting_rules"].outcome == (
        "failed"
    )


@pytest.fixture
def no_right_answers(monkeypatch):
    """check_cuts with no answer found right before: each answer is judged by the rules."""
    monkeypatch.setattr(hidden_cutting, "RIGHT_ANSWERS", hidden_cutting.RightAnswers(100))


def forget_right_answers(monkeypatch):
    monkeypatch.setattr(hidden_cutting, "RIGHT_ANSWERS", hidden_cutting.RightAnswers(100))


def test_the_reference_chunks_of_the_long_document_follow_the_cutting_rules(no_right_answers):
    # The long-document check passes an answer equal to the reference's without
    # looking at it again: that answer must itself follow every cutting rule.
    text = long_text()
    chunks = reference_chunks(REFERENCE, *LONG_SETTINGS, text)
    assert check_cuts(keep_all(REFERENCE, *LONG_SETTINGS), text, chunks) == chunks


def test_the_allowed_ends_of_a_long_text_are_worked_out_once_per_start(monkeypatch):
    real, starts = hidden_cutting.allowed_ends, []

    def counted(text, start, *args, **kwargs):
        starts.append(start)
        return real(text, start, *args, **kwargs)

    monkeypatch.setattr(hidden_cutting, "allowed_ends", counted)
    text = make_text(hidden_cutting.KEPT_FROM_LENGTH + 7)
    chunks = reference_chunks(REFERENCE, *LONG_SETTINGS, text)
    for _ in range(2):
        forget_right_answers(monkeypatch)
        assert check_cuts(keep_all(REFERENCE, *LONG_SETTINGS), text, chunks) == chunks
    assert len(starts) == len(set(starts)) == len(chunks) - 1
    # A short text's are not kept.
    starts.clear()
    short = text[:300]
    chunks = reference_chunks(REFERENCE, *LONG_SETTINGS, short)
    for _ in range(2):
        forget_right_answers(monkeypatch)
        check_cuts(keep_all(REFERENCE, *LONG_SETTINGS), short, chunks)
    assert len(starts) == 2 * (len(chunks) - 1)


def test_an_answer_found_right_is_not_judged_again_and_a_wrong_one_always_is(monkeypatch):
    forget_right_answers(monkeypatch)
    real, starts = hidden_cutting.allowed_ends, []

    def counted(text, start, *args, **kwargs):
        starts.append(start)
        return real(text, start, *args, **kwargs)

    monkeypatch.setattr(hidden_cutting, "allowed_ends", counted)
    text = "One two. Three four five six! Seven eight nine ten eleven."
    pipe = keep_all(REFERENCE, 12, 3)
    right = reference_chunks(REFERENCE, 12, 3, text)
    assert check_cuts(pipe, text, right) == right
    judged = len(starts)
    assert judged > 0
    assert check_cuts(pipe, text, list(right)) == right
    assert len(starts) == judged
    # The same chunks on other settings, or with the other reading of the sentence rules,
    # are judged on their own.
    check_cuts(pipe, text, right, any_whitespace=True)
    assert len(starts) > judged
    # A wrong answer fails each time, with the same feedback.
    wrong = [right[0][:-1], *right[1:]]
    failures = []
    for _ in range(2):
        with pytest.raises(RuleBroken) as broken:
            check_cuts(pipe, text, wrong)
        failures.append(str(broken.value))
    assert failures[0] == failures[1]
    assert failures[0].startswith("Input: ChunkingPipeline(chunk_size=12, overlap=3, ")
    assert "Not checked: fix 'Chunks are consecutive pieces of the text" in failures[0]


# Marks and whitespace of every kind together, at both ends and one after another.
SCANNED = (
    " \tOne. Two!  Three?\u00a0four.five\n\nsix ?. seven\u2028eight.\u3000 nine\u00a0\u00a0ten. "
)


@pytest.mark.parametrize("settings", [(6, 0), (7, 2), (12, 5), (20, 2), (3, 1)])
@pytest.mark.parametrize("any_whitespace", [False, True])
def test_a_text_scanned_once_allows_the_same_ends_as_its_windows(settings, any_whitespace):
    text = SCANNED * 3 + make_text(400)
    scan = TextScan(text)
    chunk_size, overlap = settings
    for start in range(len(text) - chunk_size):
        windowed = hidden_cutting.allowed_ends(
            text, start, chunk_size, overlap, any_whitespace=any_whitespace
        )
        scanned = hidden_cutting.allowed_ends(
            text, start, chunk_size, overlap, any_whitespace=any_whitespace, scan=scan
        )
        assert scanned == windowed, start


def test_a_named_call_is_freed_as_soon_as_it_is_dropped():
    # Thousands of calls are named in one grading: none is left for the garbage collector.
    def chunk_text(text: str) -> list[str]:
        return [text]

    call = named(chunk_text, "ChunkingPipeline(chunk_size=5).chunk_text")
    dropped = weakref.ref(call)
    gc.disable()
    try:
        del call
        assert dropped() is None
    finally:
        gc.enable()


def test_a_named_call_that_times_out_names_its_input():
    def chunk_text(text: str) -> list[str]:
        raise CallTimedOut("Input: chunk_text('abc')\nYour code did not finish in time.")

    with pytest.raises(CallTimedOut) as timed_out:
        named(chunk_text, "ChunkingPipeline(chunk_size=5).chunk_text")("abc")
    assert str(timed_out.value) == (
        "Input: ChunkingPipeline(chunk_size=5).chunk_text('abc')\nYour code did not finish in time."
    )


def test_a_long_texts_right_answer_is_kept_by_its_digests(monkeypatch):
    forget_right_answers(monkeypatch)
    real, judged = hidden_cutting.check_endings, []

    def counted(*args, **kwargs):
        judged.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(hidden_cutting, "check_endings", counted)
    text = make_text(hidden_cutting.KEPT_FROM_LENGTH + 7)
    chunks = reference_chunks(REFERENCE, *LONG_SETTINGS, text)
    for _ in range(2):
        assert check_cuts(keep_all(REFERENCE, *LONG_SETTINGS), text, list(chunks)) == chunks
    assert len(judged) == 1
    # The same characters cut elsewhere are another answer, judged on its own (and wrong).
    moved = [chunks[0][:-1], chunks[0][-1:] + chunks[1], *chunks[2:]]
    assert "".join(moved) == "".join(chunks)
    with pytest.raises(RuleBroken):
        check_cuts(keep_all(REFERENCE, *LONG_SETTINGS), text, moved)


def test_chunk_dicts_keyed_by_str_enum_members_are_plain_dicts_of_their_strings():
    source = overriding(
        "    def process_document(self, doc):\n"
        "        return [{Field(k): v for k, v in chunk.items()}\n"
        "                for chunk in super().process_document(doc)]\n",
        before="import enum\n\nclass Field(str, enum.Enum):\n"
        + "".join(f"    {key.upper()} = {key!r}\n" for key in CHUNK_KEYS)
        + "\n",
    )
    outcomes = grade_source(source)
    assert [o.name for o in outcomes if o.outcome != "passed"] == []


def test_a_field_of_the_wrong_type_is_named_with_its_article():
    source = overriding(
        "    def process_document(self, doc):\n"
        "        return [{**chunk, 'char_start': float(chunk['char_start'])}\n"
        "                for chunk in super().process_document(doc)]\n"
    )
    failed = by_name(grade_source(source))["test_visible.py::test_document_chunk_fields"]
    assert failed.outcome == "failed"
    assert "\nExpected: chunk 0's char_start to be an int\nGot: 0.0" in failed.feedback


POSITION_CHECKS = (
    "test_hidden_positions.py::test_whitespace_at_every_place_of_a_window",
    "test_hidden_positions.py::test_sentence_end_at_every_place_of_a_window",
    "test_hidden_positions.py::test_no_other_character_ends_a_sentence",
)


class CountingBackend(InProcessBackend):
    """Counts the calls of each kind (`new`, `method`) that reach the submission."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: dict[str, int] = {}

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["op"] != "load":
            self.ops[message["op"]] = self.ops.get(message["op"], 0) + 1
        return super().request(message)


def test_a_cut_at_every_place_makes_one_pipeline_for_each_setting():
    backend = CountingBackend()
    source = KIT.solution(LESSON).read_text()
    backend.request({"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]})
    cases = every_place(" ")
    check_all(SubmissionProxy(backend), cases)
    settings = {sizes for _, sizes in cases}
    assert backend.ops == {"new": len(settings), "method": len(cases)}
    assert len(settings) == 25 and len(cases) == 270


@pytest.mark.parametrize(
    ("mistake", "passing"),
    [
        # Each chunk_text call also returns the chunks of the calls before it.
        ("chunk_text_adds_to_a_kept_list.py", POSITION_CHECKS),
        # The pipeline made last sets the cutting of every pipeline.
        ("settings_kept_on_the_class.py", POSITION_CHECKS[2:]),
    ],
)
def test_state_kept_between_calls_is_judged_as_with_a_pipeline_for_each_case(mistake, passing):
    # Such state is the rule of its own checks (each text chunked on its own, each
    # pipeline keeping its settings): the cutting checks judge each case alone.
    outcomes = by_name(grade_file(KIT.root / "solutions/mistakes/chunking_pipeline" / mistake))
    assert [outcomes[name].outcome for name in passing] == ["passed"] * len(passing)


def test_a_cut_that_fails_on_a_shared_pipeline_is_shown_on_a_fresh_one():
    # Whitespace stripped from the end of every chunk that holds more: the first case of
    # a setting (the whitespace first) passes, so the shortest failure comes on a
    # pipeline that has answered a call already.
    source = overriding(
        "    def chunk_text(self, text):\n"
        "        return [c.rstrip() or c for c in super().chunk_text(text)]\n"
    )
    outcomes = by_name(grade_source(source))
    failed = [outcomes[name] for name in POSITION_CHECKS[:2]]
    assert [o.outcome for o in failed] == ["failed", "failed"]
    for outcome in failed:
        assert outcome.feedback.startswith("Input: ChunkingPipeline(chunk_size=")
        assert "already answered" not in outcome.feedback


def test_a_cut_checked_on_a_pipeline_that_answered_before_says_how_many_calls_came_first():
    backend = InProcessBackend()
    source = overriding(
        "    def chunk_text(self, text):\n"
        "        return [c.rstrip() or c for c in super().chunk_text(text)]\n"
    )
    backend.request({"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]})
    pipe = keep_all(SubmissionProxy(backend), 3, 0)
    check_cuts(pipe, " cccccc")  # whitespace first: nothing to strip
    with pytest.raises(RuleBroken) as failed:
        check_cuts(pipe, "c cccccc")
    assert str(failed.value).startswith(
        "Input: ChunkingPipeline(chunk_size=3, overlap=0, min_chunk_size=0).chunk_text("
        "'c cccccc'), on a pipeline that had already answered 1 other call\n"
    )


def test_a_call_that_ends_the_worker_on_a_shared_pipeline_names_the_calls_before(
    chunklab, tmp_path
):
    # The fifth call on any one pipeline ends the process: the texts of one setting share
    # a pipeline, and the feedback says how many calls it had answered.
    source = overriding(
        "    def chunk_text(self, text):\n"
        "        self.calls = getattr(self, 'calls', 0) + 1\n"
        "        if self.calls == 5:\n"
        "            import os\n"
        "            os._exit(3)\n"
        "        return super().chunk_text(text)\n"
    )
    path = tmp_path / "chunking_pipeline.py"
    path.write_text(source)
    (report,) = chunklab("grade", "--quiet", "--hidden-feedback", "full", path).reports
    tests = {test["name"]: test for test in report["tests"]}
    ended = tests[POSITION_CHECKS[0]]
    assert ended["outcome"] == "error"
    assert ended["feedback"].startswith(
        "Input: ChunkingPipeline(chunk_size=3, overlap=0, min_chunk_size=0)"
        ".chunk_text('cccc cccccc'), on a pipeline that had already answered 4 other calls\n"
        "Your code ended the process running it"
    )


# Checks of several settings or inputs: the pipelines they make and the calls they make
# of them go to the submission together. test_short_chunks_dropped sends the pipelines
# of its second step ahead once the first step's answer is known.
CHECKS_SENT_AHEAD = [
    (test_hidden.test_defaults, 0, 16),
    (test_hidden.test_every_mark_and_whitespace_ends_sentences, 0, 4),
    (test_hidden.test_mark_needs_whitespace_in_window, 0, 4),
    (test_hidden.test_any_whitespace_separates_words, 0, 8),
    (test_hidden.test_never_stalls, 0, 8),
    (test_hidden.test_invisible_characters_stay, 0, 8),
    (test_hidden.test_text_that_fits_other_texts, 0, 6),
    (test_hidden.test_chunks_are_overlapping_pieces_other_texts, 0, 10),
    (test_hidden.test_no_chunk_longer_other_texts, 0, 10),
    (test_hidden.test_ends_at_last_sentence_end_other_texts, 0, 8),
    (test_hidden.test_ends_at_last_whitespace_other_texts, 0, 6),
    (test_hidden.test_sentence_ends_next_to_other_punctuation, 0, 14),
    (test_hidden.test_window_edges_count, 0, 10),
    (test_hidden_positions.test_empty_text_gives_no_chunks, 0, 8),
    (test_visible.test_chunks_are_overlapping_pieces, 0, 6),
    (test_visible.test_no_chunk_longer_than_chunk_size, 0, 6),
    (test_visible.test_ends_at_last_sentence_end, 0, 6),
    (test_visible.test_ends_at_last_whitespace, 0, 6),
    (test_visible.test_short_chunks_dropped, 2, 6),
    # Calls of one pipeline already made: only making it is a call alone.
    (test_visible.test_text_that_fits_is_one_chunk, 1, 3),
    (test_visible.test_no_body_gives_no_chunks, 1, 3),
    (test_hidden.test_no_body_other_documents, 1, 3),
    (test_hidden.test_metadata_carried, 1, 3),
    (test_visible.test_char_start_locates_text, 0, 4),
    (test_hidden.test_char_start_locates_text_other_document, 0, 4),
]


@pytest.mark.parametrize(
    ("check", "alone", "together"),
    CHECKS_SENT_AHEAD,
    ids=[check.__name__ for check, _, _ in CHECKS_SENT_AHEAD],
)
def test_checks_on_several_settings_send_their_calls_ahead(check, alone, together):
    assert calls_sent(check, KIT.solution(LESSON)) == (alone, together)
