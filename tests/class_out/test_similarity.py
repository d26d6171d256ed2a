"""Similar code: a disguised copy is flagged, independent solutions and given code are not."""

from __future__ import annotations

import builtins
import csv
import io
import keyword
import tokenize

import pytest

from chunklab.class_out.class_outputs import given_code
from chunklab.class_out.similarity import CodeText, SimilarPair, line_spans, similar_pairs
from chunklab.class_out.similarity_csv import similarity_csv
from chunklab.kit import Kit
from tests.conftest import KIT_ROOT, LESSON_IDS

KIT = Kit(KIT_ROOT)


def disguised(source: str) -> str:
    """The same code with every local name renamed, comments rewritten, docstrings dropped."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    defined = {
        tokens[i + 1].string
        for i, token in enumerate(tokens[:-1])
        if token.string in ("def", "class") and tokens[i + 1].type == tokenize.NAME
    }
    kept = defined | {"self", "__init__"} | set(dir(builtins))
    out = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            token = token._replace(string="# my own note")
        elif (
            token.type == tokenize.NAME
            and not keyword.iskeyword(token.string)
            and token.string not in kept
            and not token.string[0].isupper()
        ):
            token = token._replace(string=f"my_{token.string}_x")
        out.append(token)
    return tokenize.untokenize(out)


def code(lesson: str, name: str, source: str) -> CodeText:
    return CodeText(lesson, f"{name}.py", name, source)


def given() -> dict[str, str]:
    return {lesson: given_code(KIT, lesson) for lesson in LESSON_IDS}


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_a_disguised_copy_is_flagged(lesson):
    original = (KIT_ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    copy = disguised(original)
    assert copy != original and "my_" in copy
    pairs = similar_pairs(
        [code(lesson, "original", original), code(lesson, "copy", copy)], given()
    ).pairs
    assert [(p.first.student, p.second.student) for p in pairs] == [("copy", "original")]
    assert pairs[0].score >= 0.95
    assert pairs[0].first_regions and pairs[0].second_regions


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_independent_correct_solutions_are_not_flagged(lesson):
    paths = [KIT_ROOT / "solutions" / f"{lesson}.py"]
    # The slow_* alternatives are the reference slowed down on purpose: copies, not independent.
    paths += sorted(
        p
        for p in (KIT_ROOT / "solutions" / "alternatives" / lesson).glob("*.py")
        if not p.name.startswith("slow_")
    )
    assert len(paths) >= 4
    codes = [code(lesson, p.stem, p.read_text(encoding="utf-8")) for p in paths]
    assert similar_pairs(codes, given()).pairs == ()


def test_the_lessons_given_code_does_not_count():
    """Two students keep all of the notebook's given code and write different solutions."""
    given_cells = given()["word_chunk"]
    alternatives = KIT_ROOT / "solutions" / "alternatives" / "word_chunk"
    codes = [
        code("word_chunk", name, given_cells + "\n" + (alternatives / f"{name}.py").read_text())
        for name in ("regex_findall", "deque_of_words")
    ]
    assert similar_pairs(codes, given()).pairs == ()
    # Counted as their own code, the given cells alone would make them a pair.
    assert len(similar_pairs(codes, {}).pairs) == 1


def test_a_copy_with_code_added_is_still_flagged():
    original = (KIT_ROOT / "solutions" / "char_chunk.py").read_text(encoding="utf-8")
    padding = (KIT_ROOT / "solutions" / "word_chunk.py").read_text(encoding="utf-8")
    padded = disguised(original) + "\n\n" + padding.replace("def solve", "def words_of")
    pairs = similar_pairs(
        [code("char_chunk", "original", original), code("char_chunk", "padded", padded)], given()
    ).pairs
    assert [(p.first_share >= 0.95, p.second_share < 0.7) for p in pairs] == [(True, True)]


def test_a_few_shared_lines_are_not_a_pair():
    common = "def chunk(text, size, overlap):\n    if size <= 0:\n        raise ValueError('no')\n"
    small = [code("char_chunk", name, common + f"    return [{name!r}]\n") for name in "ab"]
    assert similar_pairs(small, given()).pairs == ()


def test_pairs_are_only_made_within_a_lesson():
    source = (KIT_ROOT / "solutions" / "char_chunk.py").read_text(encoding="utf-8")
    codes = [code("char_chunk", "one", source), code("word_chunk", "two", source)]
    assert similar_pairs(codes, given()).pairs == ()


def test_code_longer_than_the_fingerprint_budget_is_not_compared_and_said_so(monkeypatch):
    from chunklab.class_out import similarity
    from chunklab.class_out.class_report import RunFacts, class_report_html
    from chunklab.class_out.class_tally import ClassTally

    fingerprinted = []
    real = similarity.fingerprinted

    def counted(copydetect, text, boilerplate):
        fingerprinted.append(text.student)
        return real(copydetect, text, boilerplate)

    monkeypatch.setattr(similarity, "fingerprinted", counted)
    solution = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()
    huge = solution + "x = 1 + 2 * y - z\n" * (1024 * 1024 // 18)  # a megabyte of code
    codes = [
        code("char_chunk", "ana", solution),
        code("char_chunk", "ben", disguised(solution)),
        code("char_chunk", "mal", huge),
    ]
    found = similar_pairs(codes, given())
    assert fingerprinted == ["ana", "ben"]
    assert [(p.first.student, p.second.student) for p in found.pairs] == [("ana", "ben")]
    assert [c.student for c in found.not_compared] == ["mal"]
    assert (
        "1 submission(s) hold more than 20,000 characters of code and were not compared: mal."
        in class_report_html(ClassTally().summary(), RunFacts("", "", 0, (), ""), {}, found)
    )


def test_line_spans_merge_touching_lines():
    source = "a = 1\nb = 2\nc = 3\nd = 4\n"
    assert line_spans(source, [(0, 5), (6, 11), (18, 23)]) == ((1, 2), (4, 4))


def test_similarity_csv_cells_are_inert():
    evil = '=HYPERLINK("x")\x1b'
    first, second = code("char_chunk", evil, "x = 1\n"), code("char_chunk", "bob", "x = 1\n")
    pair = SimilarPair("char_chunk", first, second, 1.0, 0.9, ((0, 5),), ((0, 5),))
    rows = list(csv.reader(io.StringIO(similarity_csv([pair]))))
    assert rows[1][2] == '\'=HYPERLINK("x")\\x1b'
    assert rows[1][5] == "L1"


def mistakes_of(lesson: str) -> list[CodeText]:
    paths = sorted((KIT_ROOT / "solutions" / "mistakes" / lesson).glob("*.py"))
    return [code(lesson, p.stem, p.read_text(encoding="utf-8")) for p in paths]


def test_only_the_most_similar_pairs_are_kept_but_all_are_counted():
    # The pipeline's known mistakes are small edits of one solution: many pairs.
    codes = mistakes_of("chunking_pipeline")
    everything = similar_pairs(codes, given())
    assert everything.flagged == len(everything.pairs) > 20
    kept = similar_pairs(codes, given(), keep=5)
    assert kept.flagged == everything.flagged
    assert kept.pairs == everything.pairs[:5]
    scores = [p.score for p in everything.pairs]
    assert scores == sorted(scores, reverse=True)


def test_matching_regions_are_the_ones_copydetect_finds():
    import copydetect

    from chunklab.class_out.similarity import fingerprint, regions

    codes = mistakes_of("chunking_pipeline")[:6]
    pairs = similar_pairs(codes, {}).pairs
    assert len(pairs) >= 5
    for pair in pairs:
        one, other = (fingerprint(copydetect, c.source) for c in (pair.first, pair.second))
        _, _, (first, second) = copydetect.compare_files(one, other)
        assert pair.first_regions == regions(first, len(pair.first.source))
        assert pair.second_regions == regions(second, len(pair.second.source))


def test_shared_counts_are_the_set_intersections():
    import copydetect

    from chunklab.class_out.similarity import fingerprinted, shared_counts

    codes = mistakes_of("char_chunk") + mistakes_of("word_chunk")[:5]
    sides = [fingerprinted(copydetect, c, None) for c in codes]
    counts = shared_counts(sides)
    for i, one in enumerate(sides):
        for j, other in enumerate(sides[i + 1 :], start=i + 1):
            expected = len(set(one.hashes.tolist()) & set(other.hashes.tolist()))
            assert counts[i, j] == expected
