"""Grader checks that written-from-the-rules submissions cannot slip past, and feedback that
points at the real fault: normalised text, Unicode whitespace, long answers, rules blamed
for faults that are not theirs, exception messages."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from chunklab.lessons import LESSONS
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.char_chunk import test_hidden as char_hidden
from chunklab.suites.checks import RuleBroken, expect_result, result_of
from chunklab.suites.chunking_pipeline import test_visible as pipeline_visible
from chunklab.suites.long_texts import LONG_TEXT_SECONDS, same_as_expected, timed_right_answer
from chunklab.suites.word_chunk import test_hidden as word_hidden
from tests.suites.test_window_lessons import (
    failure_of,
    grader_tests,
    hidden_part,
    proxy_for,
    run_test,
)

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

ROOT = Path(__file__).resolve().parents[2]
# Each lesson's rules text lives in its folder.
LESSON_TEXT = {lesson: LESSONS[lesson].folder / "rules.md" for lesson in LESSONS}


def mistake(lesson: str, name: str) -> Path:
    return ROOT / "solutions" / "mistakes" / lesson / name


def reference(lesson: str) -> Path:
    return ROOT / "solutions" / f"{lesson}.py"


# --- Text that normalisation would change -------------------------------------------------


def test_a_text_normalised_first_breaks_the_every_character_counts_rule():
    test = grader_tests("char_chunk", "hidden")[
        "test_whitespace_and_accents_are_ordinary_characters"
    ]
    run_test(test, proxy_for(reference("char_chunk"))[0], "char_chunk")
    proxy, _ = proxy_for(mistake("char_chunk", "unicode_normalised_first.py"))
    assert hidden_part(failure_of(test, proxy, "char_chunk")) == (
        "Input: chunk('Cafe\u0301 au lait', 5, 1)\n"
        "Expected: ['Cafe\u0301', '\u0301 au ', ' lait']\n"
        "Got: ['Caf\u00e9 ', ' au l', 'lait']\n"
        # The two chunks look alike, so the first character that differs is named.
        "At character 3 of chunk 0 there is U+00E9 (LATIN SMALL LETTER E WITH ACUTE), "
        "where U+0065 (LATIN SMALL LETTER E) was expected."
    )


def test_the_random_char_texts_hold_text_that_normalisation_changes():
    texts = [call[0] for call in char_hidden.VALID_RANDOM_CALLS]
    for form in ("NFC", "NFD", "NFKC"):
        assert any(unicodedata.normalize(form, text) != text for text in texts), form
    test = grader_tests("char_chunk", "hidden")["test_random_texts_give_exactly_the_windows"]
    proxy, _ = proxy_for(mistake("char_chunk", "unicode_normalised_first.py"))
    assert failure_of(test, proxy, "char_chunk").startswith("Input: chunk(")


def test_the_char_lesson_says_a_combining_accent_is_a_character_of_its_own():
    text = LESSON_TEXT["char_chunk"].read_text(encoding="utf-8")
    assert "Nothing is removed, normalised or expanded before cutting" in text
    assert '(`"e\\u0301"`, two\ncharacters)' in text


# --- Whitespace is what str.isspace says --------------------------------------------------


@pytest.mark.parametrize("name", ["ascii_whitespace_only.py", "string_whitespace_only.py"])
def test_splitting_at_ascii_whitespace_only_breaks_the_unicode_whitespace_rule(name):
    test = grader_tests("word_chunk", "hidden")["test_unicode_whitespace_separates_words"]
    run_test(test, proxy_for(reference("word_chunk"))[0], "word_chunk")
    proxy, _ = proxy_for(mistake("word_chunk", name))
    assert hidden_part(failure_of(test, proxy, "word_chunk")) == (
        "Input: solve('one\\u2028two\\x85three\\xa0four', 2, 1)\n"
        "Expected: ['one two', 'two three', 'three four']\n"
        "Got: ['one\\u2028two\\x85three\\xa0four']"
    )
    random_test = grader_tests("word_chunk", "hidden")[
        "test_random_texts_give_exactly_the_word_windows"
    ]
    assert failure_of(random_test, proxy, "word_chunk").startswith("Input: solve(")


def test_the_random_word_texts_separate_words_by_unicode_whitespace():
    texts = "".join(call[0] for call in word_hidden.RANDOM_CALLS)
    assert {"\x85", "\xa0", "\u2028", "\u3000"} & set(texts)


def test_the_word_lesson_says_whitespace_is_what_str_isspace_says():
    text = LESSON_TEXT["word_chunk"].read_text(encoding="utf-8")
    assert "- **whitespace**: any character for which `str.isspace()` is true" in text


# --- Long answers ---------------------------------------------------------------------------


def lowercased_chunk(text: str, size: int, overlap: int) -> list[str]:
    return [text[i : i + size].lower() for i in range(0, len(text) - overlap, size - overlap)]


def test_long_lists_that_differ_are_shown_by_their_first_differing_chunk():
    text = "abcdefgh" * 40 + "Mr. Smith" + "ijklmnop" * 40
    expected = [text[i : i + 4] for i in range(0, len(text) - 2, 2)]
    with pytest.raises(RuleBroken) as caught:
        expect_result(lowercased_chunk, (text, 4, 2), expected)
    message = str(caught.value).split("\n", 1)[1]
    assert message == (
        f"Expected: {len(expected)} chunks; chunk 159 is 'ghMr'\n"
        f"Got: {len(expected)} chunks; chunk 159 is 'ghmr'\n"
        "Chunks 0 to 158 are right; chunk 159 is the first that differs."
    )


def test_a_long_list_that_stops_early_says_which_chunk_is_missing():
    expected = [f"chunk {n}" for n in range(100)]
    with pytest.raises(RuleBroken) as caught:
        expect_result(lambda text: expected[:-1], ("t",), expected)
    assert str(caught.value) == (
        "Input: <lambda>('t')\n"
        "Expected: 100 chunks; chunk 99 is 'chunk 99'\n"
        "Got: 99 chunks; there is no chunk 99\n"
        "Chunks 0 to 98 are right; chunk 99 is the first that differs."
    )


def test_a_wrong_long_answer_is_said_to_be_wrong_not_slow():
    text = "The Mr. Smith case. " * 50_000
    expected = [text[i : i + 10] for i in range(0, len(text) - 2, 8)]
    with pytest.raises(RuleBroken) as caught:
        timed_right_answer(lowercased_chunk, (text, 10, 2), expected, same_as_expected(expected))
    message = str(caught.value)
    answers = message.split("\n", 1)[1]
    assert "characters left out" not in answers and len(answers) < 300
    assert re.fullmatch(
        r"Input: lowercased_chunk\('The Mr\. Smith.*', 10, 2\)\n"
        rf"Expected: {len(expected)} chunks; chunk 0 is 'The Mr\. Sm'\n"
        rf"Got: {len(expected)} chunks; chunk 0 is 'the mr\. sm'\n"
        r"Chunk 0 is the first that differs\.\n"
        r"Verdict: the answer is wrong; the time is not the problem "
        rf"\(it came within {LONG_TEXT_SECONDS:g} seconds\)\.",
        message,
    ), message


def test_the_long_document_checks_judge_the_answer_before_the_time():
    test = grader_tests("word_chunk", "hidden")["test_a_long_document"]
    proxy, _ = proxy_for(mistake("word_chunk", "changes_case.py"))
    message = failure_of(test, proxy, "word_chunk")
    assert "characters left out" not in message.split("\n", 1)[1]
    assert message.endswith(
        "\nVerdict: the answer is wrong; the time is not the problem (it came within 2 seconds)."
    )
    assert re.search(r"\nExpected: \d+ chunks; chunk \d+ is .*\nGot: \d+ chunks; chunk", message)


# --- A basic rule is blamed only when it is broken ---------------------------------------------


def test_an_empty_answer_is_shown_as_it_is_not_blamed_on_the_length_rule():
    test = grader_tests("chunking_pipeline", "hidden")["test_whitespace_only_body"]
    proxy, _ = proxy_for(mistake("chunking_pipeline", "whitespace_text_gives_nothing.py"))
    assert failure_of(test, proxy, "chunking_pipeline") == (
        "Input: ChunkingPipeline(chunk_size=10, overlap=2, min_chunk_size=0)."
        "chunk_text('            \\n\\n\\n\\n\\n\\n\\n\\n\\n\\t\\t\\t\\t\\t\\t\\t\\t'), "
        "on a pipeline that had already answered 1 other call\n"
        "Expected: at least 4 chunks of at most 10 characters, each next one starting 2 "
        "characters before the one before ends, to hold all 29 characters\n"
        "Got: []"
    )


def test_a_chunk_longer_than_chunk_size_still_says_to_fix_the_length_rule_first():
    pipe = pipeline_visible.Pipeline.__new__(pipeline_visible.Pipeline)
    pipe.chunk_size, pipe.overlap = 4, 1
    with pytest.raises(RuleBroken) as caught:
        pipeline_visible.lengths_first(pipe, "abcdefgh", ["abcdefgh"], "chunk_text('abcdefgh')")
    assert str(caught.value) == (
        f"Input: chunk_text('abcdefgh')\nNot checked: fix '{pipeline_visible.LENGTH_RULE}' first."
    )


# --- Exception messages ----------------------------------------------------------------------


class KeyErrorBackend:
    """Answers every call as a worker does when the submission raised KeyError('metadata')."""

    def request(self, message: dict) -> dict:
        raised = {"type": "KeyError", "builtin": "KeyError", "message": "'metadata'"}
        return {"raised": raised}


def test_a_key_error_message_is_quoted_once():
    proxy = SubmissionProxy(KeyErrorBackend())
    with pytest.raises(RuleBroken) as caught:
        result_of(proxy.chunk, ("abc", 2, 1))
    assert str(caught.value) == "Input: chunk('abc', 2, 1)\nIt raised KeyError: 'metadata'"


def test_a_missing_metadata_key_is_shown_as_python_shows_it():
    test = grader_tests("chunking_pipeline", "hidden")["test_metadata_carried"]
    proxy, _ = proxy_for(mistake("chunking_pipeline", "metadata_read_with_brackets.py"))
    message = failure_of(test, proxy, "chunking_pipeline")
    assert message.startswith("Input: ChunkingPipeline(chunk_size=40, overlap=5, min_chunk_size=0)")
    assert message.endswith("\nIt raised KeyError: 'metadata'")


# --- A wrong whitespace cut is blamed on the whitespace rule ---------------------------------


def test_a_wrong_whitespace_cut_is_not_blamed_on_sentence_ends():
    from tests.suites.test_pipeline_lesson import grade_file

    outcomes = grade_file(mistake("chunking_pipeline", "first_whitespace.py"))
    failed = {o.name.split("::")[1] for o in outcomes if o.outcome != "passed"}
    assert failed == {
        "test_ends_at_last_whitespace",
        "test_ends_at_last_whitespace_other_texts",
        "test_any_whitespace_separates_words",
        "test_window_edges_count",
        "test_random_texts_follow_cutting_rules",
        "test_a_long_document",
    }


def test_a_sentence_check_says_when_its_window_has_no_usable_sentence_end():
    from chunklab.suites.chunking_pipeline.hidden_cutting import allowed_ends

    text = "Wait! Are you really sure about that? Yes."
    assert allowed_ends(text, 0, 30, 6) == {25: "word", 26: "word"}
    relaxed = allowed_ends(text, 0, 30, 6, any_whitespace=True)
    assert relaxed == {end: "any whitespace" for end in (9, 10, 13, 14, 20, 21, 25, 26)}
    said = pipeline_visible.describe_ends(text, 0, 30, relaxed)
    assert said == (
        "at a usable whitespace, as its window has no usable sentence end "
        "(which whitespace is a rule of its own, checked apart)"
    )


# --- Each known mistake fails the check of the rule it breaks ---------------------------------


@pytest.mark.parametrize(
    ("lesson", "name", "test_name", "input_shown"),
    [
        # Invisible characters count as they are, and nothing is removed.
        (
            "char_chunk",
            "drops_zero_width_characters.py",
            "test_whitespace_and_accents_are_ordinary_characters",
            "chunk('\\ufeffab\\u200bcd\\u200d\\xad', 2, 0)",
        ),
        # The same text with other settings, one call after another.
        (
            "char_chunk",
            "remembers_the_last_text.py",
            "test_windows_move_forward_on_other_texts",
            "chunk('mississippi', 3, 1)",
        ),
        # Only whitespace separates words: not hyphens, dashes or slashes.
        (
            "word_chunk",
            "hyphens_and_slashes_separate_words.py",
            "test_punctuation_and_capital_letters_are_kept",
            "solve('a well-known fact and/or a\u2014b', 2, 1)",
        ),
        (
            "word_chunk",
            "strips_the_byte_order_mark.py",
            "test_punctuation_and_capital_letters_are_kept",
            "solve('\\ufeffCafe\u0301 zero\\u200bwidth soft\\xadhyphen end', 2, 0)",
        ),
        (
            "word_chunk",
            "remembers_the_last_text.py",
            "test_word_windows_on_other_texts",
            "solve('a b c d e f g', 3, 1)",
        ),
    ],
)
def test_a_mistake_fails_the_check_of_the_rule_it_breaks_on_the_input_shown(
    lesson, name, test_name, input_shown
):
    test = grader_tests(lesson, "hidden")[test_name]
    run_test(test, proxy_for(reference(lesson))[0], lesson)
    proxy, _ = proxy_for(mistake(lesson, name))
    assert failure_of(test, proxy, lesson).startswith(f"Input: {input_shown}\n")


@pytest.mark.parametrize(
    ("name", "test_name"),
    [
        ("other_scripts_marks_end_sentences.py", "test_sentence_ends_next_to_other_punctuation"),
        ("batch_skips_repeated_ids.py", "test_batch_is_flat_and_in_order_other_documents"),
        ("settings_in_another_order.py", "test_defaults"),
        ("ascii_control_separators_not_whitespace.py", "test_any_whitespace_separates_words"),
        ("long_blank_body_gives_nothing.py", "test_whitespace_only_body"),
        ("chunk_index_continues_across_documents.py", "test_chunk_index_after_dropping"),
    ],
)
def test_a_pipeline_mistake_fails_the_check_of_the_rule_it_breaks(name, test_name):
    test = grader_tests("chunking_pipeline", "hidden")[test_name]
    run_test(test, proxy_for(reference("chunking_pipeline"))[0], "chunking_pipeline")
    proxy, _ = proxy_for(mistake("chunking_pipeline", name))
    assert failure_of(test, proxy, "chunking_pipeline").startswith("Input: ")


def test_a_batch_is_judged_on_what_it_puts_together_not_on_earlier_calls():
    # This mistake's batch is right: only process_document, called again on the same
    # pipeline, counts on from the last document. The batch checks must not blame it.
    proxy, _ = proxy_for(mistake("chunking_pipeline", "chunk_index_continues_across_documents.py"))
    for visibility, test_name in (
        ("visible", "test_batch_is_flat_and_in_order"),
        ("hidden", "test_batch_is_flat_and_in_order_other_documents"),
        ("hidden", "test_batch_counts_index_per_document"),
    ):
        test = grader_tests("chunking_pipeline", visibility)[test_name]
        run_test(test, proxy, "chunking_pipeline")


def test_a_nested_batch_is_told_to_be_one_flat_list():
    test = grader_tests("chunking_pipeline", "visible")["test_batch_is_flat_and_in_order"]
    proxy, _ = proxy_for(mistake("chunking_pipeline", "batch_returns_nested_lists.py"))
    message = failure_of(test, proxy, "chunking_pipeline")
    assert "Expected: one flat list of chunk dicts, but item 0 is itself a list" in message
    assert "OrderedDict" not in message


def test_an_answer_after_earlier_calls_on_the_same_pipeline_says_so():
    # Without the note, the input shown could not give the answer shown.
    test = grader_tests("chunking_pipeline", "visible")["test_text_that_fits_is_one_chunk"]
    proxy, _ = proxy_for(mistake("chunking_pipeline", "chunk_text_adds_to_a_kept_list.py"))
    assert failure_of(test, proxy, "chunking_pipeline") == (
        "Input: ChunkingPipeline(chunk_size=40, overlap=10, min_chunk_size=0)"
        ".chunk_text('One sentence. Then another.'), on a pipeline that had already answered "
        "1 other call\n"
        "Expected: ['One sentence. Then another.']\n"
        "Got: ['x', 'One sentence. Then another.']"
    )


# --- Pipelines and calls apart, text kept as given, char_start after dropping ---------------


@pytest.mark.parametrize(
    ("name", "test_name", "said"),
    [
        (
            "settings_kept_on_the_class.py",
            "test_each_pipeline_keeps_its_own_settings",
            "these are exactly the chunks of an earlier call, ChunkingPipeline(chunk_size=40, "
            "overlap=5, min_chunk_size=30).chunk_text(the same text)",
        ),
        (
            "cache_shared_and_keyed_without_overlap.py",
            "test_each_pipeline_keeps_its_own_settings",
            "these are exactly the chunks of an earlier call, ChunkingPipeline(chunk_size=40, "
            "overlap=5, min_chunk_size=0).chunk_text(the same text)",
        ),
        (
            "cache_keyed_by_length_and_start.py",
            "test_each_text_is_chunked_on_its_own",
            "these are cut at the same places as the chunks of an earlier call",
        ),
        (
            "strips_a_leading_byte_order_mark.py",
            "test_invisible_characters_stay",
            "Expected: chunk 0 to begin the text with its own characters: '\\ufeffFirst",
        ),
        (
            "removes_zero_width_characters.py",
            "test_invisible_characters_stay",
            "Expected: chunk 0 to begin the text with its own characters: '\\ufeffFirst",
        ),
        (
            "normalises_the_text_first.py",
            "test_invisible_characters_stay",
            "there is U+00E9 (LATIN SMALL LETTER E WITH ACUTE), where U+0065 (LATIN SMALL "
            "LETTER E) was expected",
        ),
        (
            "char_start_searched_after_the_last_kept_chunk.py",
            "test_char_start_on_repeated_text",
            "min_chunk_size=17).process_document(",
        ),
    ],
)
def test_a_mistake_fails_the_rule_it_breaks(name, test_name, said):
    test = grader_tests("chunking_pipeline", "hidden")[test_name]
    run_test(test, proxy_for(reference("chunking_pipeline"))[0], "chunking_pipeline")
    proxy, _ = proxy_for(mistake("chunking_pipeline", name))
    assert said in failure_of(test, proxy, "chunking_pipeline")


@pytest.mark.parametrize(
    "name",
    ["first_whitespace.py", "no_overlap.py", "offsets_off_by_overlap.py", "strips_chunks.py"],
)
def test_a_cutting_mistake_is_not_blamed_on_pipelines_or_invisible_characters(name):
    proxy, _ = proxy_for(mistake("chunking_pipeline", name))
    tests = grader_tests("chunking_pipeline", "hidden")
    for test_name in (
        "test_each_pipeline_keeps_its_own_settings",
        "test_each_text_is_chunked_on_its_own",
        "test_invisible_characters_stay",
    ):
        run_test(tests[test_name], proxy, "chunking_pipeline")


# --- Inputs left as they were -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("writes_into_the_document.py", "Got: it gained the key 'chunk_count'; after the call"),
        ("batch_empties_the_callers_list.py", "Got: it held 0 items instead of 3; after the call"),
        ("modifies_metadata.py", "Got: it['metadata'] gained the key 'title'; after the call"),
    ],
)
def test_a_call_that_changes_its_inputs_breaks_the_inputs_rule(name, said):
    test = grader_tests("chunking_pipeline", "hidden")["test_inputs_left_as_they_were"]
    run_test(test, proxy_for(reference("chunking_pipeline"))[0], "chunking_pipeline")
    proxy, _ = proxy_for(mistake("chunking_pipeline", name))
    assert said in failure_of(test, proxy, "chunking_pipeline")


def test_an_answer_about_inputs_no_call_asked_for_is_a_broken_protocol():
    from chunklab.contract import ProtocolBroken
    from chunklab.sandbox.answer_shape import Expected, checked_answer

    digest = "0" * 128
    assert checked_answer({"ok": [], "inputs": digest}, Expected("inputs"))["inputs"] == digest
    for answer, expected in (
        ({"ok": [], "inputs": digest}, Expected("method")),
        ({"ok": []}, Expected("inputs")),
        ({"ok": [], "inputs": "not a digest"}, Expected("inputs")),
    ):
        with pytest.raises(ProtocolBroken):
            checked_answer(answer, expected)
