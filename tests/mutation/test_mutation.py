"""`chunklab validate --mutants`: the mutants made, survivors judged on the rules, the table."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from chunklab.mutation.calls import Answer
from chunklab.mutation.making import compiles, mutants_of, parsed
from chunklab.mutation.pipeline_rules import CUTTING_RULE, PipelineRules, made_by_rules
from chunklab.mutation.proving import LessonProof, MutantResult, chosen
from chunklab.mutation.survivors import ALLOWED, EQUIVALENT, GAP, Finding, examine
from chunklab.mutation.table import mutation_table
from tests.conftest import KIT_ROOT, LESSON_IDS
from tests.kit_copy import copy_kit, run_chunklab

SOURCE = textwrap.dedent(
    '''
    def solve(text):
        """Every word but the first, when the text starts with whitespace."""
        words = text.split()
        if text[:1].isspace():
            return words[1:]
        return "ab"
    '''
)


def test_the_classic_operators_make_their_mutants():
    made = mutants_of("word_chunk", SOURCE)
    sources = [mutant.source for mutant in made]
    assert (
        "    words = text.split(' ')\n" in sources[[m.operator for m in made].index("SplitOnSpace")]
    )
    for expected in (
        "    words = text.split(' ')",
        "    if (text[:1] == ' '):",
        "    if (text[:1] in ' \\t\\n\\r\\x0b\\x0c'):",
        "        return words[1 - 1:]",
        "    if text[:1 + 1].isspace():",
        "    return ''",
        "    return 'Xab1'",
        "        pass",
    ):
        assert sum(expected in source.splitlines() for source in sources) == 1, expected
    # Never the docstring: it is neither emptied, changed nor removed.
    assert all('"""Every word but the first' in source for source in sources)


def test_mutants_are_distinct_compiling_changes_of_the_reference():
    made = mutants_of("word_chunk", SOURCE)
    shapes = [ast.dump(ast.parse(mutant.source)) for mutant in made]
    assert len(set(shapes)) == len(made) > 10
    assert ast.dump(ast.parse(SOURCE)) not in shapes
    assert all(compiles(mutant.source) for mutant in made)
    # Parsed but not compiled: such a mutant is dropped.
    assert parsed("break") is not None and not compiles("break")
    assert [mutant.number for mutant in made] == list(range(len(made)))


def test_a_sample_is_spread_over_the_mutants_and_touching_picks_lines():
    made = mutants_of("word_chunk", SOURCE)
    assert [m.number for m in chosen(made, 3)] == [0, len(made) // 3, 2 * len(made) // 3]
    picked = mutants_of("word_chunk", SOURCE, touching="return words[1:]")
    assert {m.line for m in picked} == {6}
    assert {m.operator for m in picked} == {"RemoveStatement", "MoveSliceBound", "NumberReplacer"}


def pipeline_case(text: str, *settings: int):
    rules = PipelineRules()
    return rules, rules.case("chunk_text", settings, {}, text)


def test_a_word_cut_when_the_window_had_whitespace_breaks_the_rules():
    rules, case = pipeline_case("to bed", 5, 1, 0)
    assert case.call == "ChunkingPipeline(5, 1, 0).chunk_text('to bed')"
    assert rules.broken(case, Answer("returned", ["to be", "ed"])) == CUTTING_RULE
    # Keeping the whitespace or not: both readings are allowed.
    assert rules.broken(case, Answer("returned", ["to ", " bed"])) is None
    assert rules.broken(case, Answer("returned", ["to", "o bed"])) is None


def test_dropping_is_judged_on_every_cutting_the_rules_allow():
    settings = {"chunk_size": 5, "overlap": 1, "min_chunk_size": 4}
    assert made_by_rules("to bed", settings, [(" bed", None)])
    assert made_by_rules("to bed", settings, [("o bed", None)])
    assert made_by_rules("to bed", settings, [("o bed", 1)])
    assert not made_by_rules("to bed", settings, [("o bed", 0)])
    assert not made_by_rules("to bed", settings, [("to bed", None)])
    assert made_by_rules("", settings, []) and not made_by_rules("", settings, [("", None)])


def char_reference() -> str:
    return (KIT_ROOT / "solutions" / "char_chunk.py").read_text(encoding="utf-8")


def test_a_survivor_that_breaks_a_rule_is_a_gap_on_its_smallest_input():
    reference = char_reference()
    mutant = reference.replace("if start + size >= len(text):", "if start + size > len(text):")
    finding = examine("char_chunk", mutant, reference)
    assert finding.kind == GAP
    assert finding.call == "chunk('ab', 2, 1)"
    assert (finding.got, finding.reference) == ("['ab', 'b']", "['ab']")


def test_a_survivor_no_input_separates_is_an_equivalent_candidate():
    reference = char_reference()
    # With overlap == size the step is 0, and range() raises the ValueError itself.
    mutant = reference.replace("if overlap >= size:", "if overlap > size:")
    assert examine("char_chunk", mutant, reference) == Finding(EQUIVALENT)


def test_the_table_shows_counts_score_and_each_gap_with_its_diff_and_input():
    made = mutants_of("word_chunk", SOURCE)[:4]
    gap = Finding(GAP, "chunk('ab', 2, 1)", "a rule", "['ab', 'b']", "['ab']")
    results = (
        MutantResult(made[0], "37/37", False, gap),
        MutantResult(made[1], "37/37", False, Finding(EQUIVALENT), "same answers: why"),
        MutantResult(made[2], "37/37", False, Finding(ALLOWED, "chunk('a', 1, 0)", "", "x", "y")),
        MutantResult(made[3], "3/37", True),
    )
    proof = LessonProof("word_chunk", results)
    assert not proof.ok and proof.score == 1 / 3
    table = mutation_table([proof])
    assert table.splitlines()[:2] == [
        "lesson      mutants  killed  equivalent  allowed  gaps  score",
        "word_chunk  4        1       1           1        1     33.3%",
    ]
    assert textwrap.indent(made[0].diff, "    ") in table
    assert "  input: chunk('ab', 2, 1)\n  breaks: a rule\n" in table
    assert "    same answers: why" in table
    assert table.endswith(
        "1 lesson(s) with a gap: a mutant that breaks a stated rule keeps full marks\n"
    )


def test_validate_mutants_on_a_sample_of_the_kit(chunklab):
    result = chunklab("validate", "--mutants", "--sample", "2", "--jobs", "2")
    assert result.exit_code == 0, result.stdout
    rows = re.findall(r"^(\w+)\s+2\s+(\d+)\s+(\d+)\s+(\d+)\s+0\s+[\d.]+%$", result.stdout, re.M)
    assert [row[0] for row in rows] == list(LESSON_IDS)
    assert "no gap: every mutant that breaks a stated rule loses points" in result.stdout


def test_a_check_removed_from_a_suite_shows_as_a_gap_with_its_input(tmp_path: Path):
    kit = copy_kit(tmp_path / "kit")
    suite = kit / "graders/chunklab/suites/chunking_pipeline/test_hidden.py"
    source = suite.read_text(encoding="utf-8")
    start = source.index('@pytest.mark.rule(\n    "ChunkingPipeline() uses chunk_size 500')
    end = source.index("# --- Cutting")
    suite.write_text(source[:start] + source[end:], encoding="utf-8")
    result = run_chunklab(
        kit, "validate", "--mutants", "chunking_pipeline", "--touching", "chunk_size: int = 500"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "== chunking_pipeline: gaps ==" in result.stdout
    gap = result.stdout.split("== chunking_pipeline: gaps ==")[1]
    assert "+    def __init__(self, chunk_size: int = 501, overlap: int = 50" in gap
    assert "  input: ChunkingPipeline().chunk_text('aaaaaaaaaaaa" in gap
    assert "  the mutant gives:    3 chunks of these lengths: [501, 501, 298]\n" in gap
    assert "  the reference gives: 3 chunks of these lengths: [500, 500, 300]\n" in gap
    assert re.search(r"^chunking_pipeline +6 +1 +0 +0 +5 +", result.stdout, re.M), result.stdout


def test_choosing_mutants_without_mutants_is_a_usage_error(chunklab):
    result = chunklab("validate", "--sample", "3")
    assert result.exit_code == 2
    assert "--sample and --touching choose mutants: give --mutants too" in result.stderr


def test_only_a_call_past_its_time_twice_has_run_too_long(monkeypatch):
    from chunklab.mutation import calls

    monkeypatch.setattr(calls, "CALL_SECONDS", 0.05)
    made = []

    def slow_once() -> str:
        made.append(1)
        while len(made) == 1:  # the first call spins, as a long garbage collection would
            pass
        return "done"

    def spins() -> None:
        while True:
            pass

    assert calls.answer_of(slow_once) == Answer("returned", "done")
    assert calls.answer_of(spins) == Answer(calls.RAN_TOO_LONG)
    assert calls.answer_of(dict.clear, {"a": 1}) == Answer("returned", None, changed=True)
