"""One student, one identity: names are made one by the same rule before duplicates are merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunklab.identity import same_student
from tests.class_out.test_class_gradebooks import rows_of

STUB = "def chunk(text, size, overlap):\n    return []\n"
KELVIN_KIM = "\u212aim"  # a Kelvin sign where the K is
ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n"
    "    Points Possible,,,,\n"
    '"A, Alice",101,s1,alice,S\n'
    '"K, Kim",102,s2,kim,S\n'
)


@pytest.mark.parametrize(
    ("one", "other"),
    [("alice ", "alice"), (KELVIN_KIM, "kim"), ("ＢＯＢ", "bob"), ("Zoë", "zoe\u0308")],
)
def test_spellings_of_one_student_are_one(one, other):
    assert same_student(one) == same_student(other)


@pytest.mark.parametrize(("one", "other"), [("mary.ann", "mary-ann"), ("frank", "frank\u200b")])
def test_names_that_differ_stay_apart(one, other):
    assert same_student(one) != same_student(other)


@pytest.fixture
def twice(tmp_path: Path, kit_root: Path) -> Path:
    """alice and kim handed in a solution; a second folder of each spelling holds a stub."""
    solution = (kit_root / "solutions/char_chunk.py").read_text()
    for folder, code in (
        ("alice", solution),
        ("alice ", STUB),
        ("kim", solution),
        (KELVIN_KIM, STUB),
    ):
        (tmp_path / "class" / folder).mkdir(parents=True)
        (tmp_path / "class" / folder / "char_chunk.py").write_text(code)
    return tmp_path / "class"


def test_a_second_spelling_never_replaces_a_students_better_grade(chunklab, tmp_path, twice):
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", roster, "--lms", "canvas", twice
    )
    assert result.exit_code == 0
    full = f"{result.reports[0]['max_score']:g}"
    assert rows_of(out / "gradebook_canvas.csv")[2:] == [
        ["A, Alice", "101", "s1", "alice", "S", full],
        ["K, Kim", "102", "s2", "kim", "S", full],
    ]
    gradebook = rows_of(out / "gradebook.csv")
    assert [(row[0], row[2], row[5]) for row in gradebook[1:]] == [
        ("alice", full, "graded"),
        ("kim", full, "graded"),
    ]
    notes = [row[-1] for row in gradebook[1:]]
    assert all(note.startswith("handed in 2 times; the best score is kept") for note in notes)
    assert rows_of(out / "gradebook_wide.csv")[1:] == [["alice", full, full], ["kim", full, full]]


def test_without_a_roster_the_same_rule_merges_the_spellings(chunklab, tmp_path, twice):
    out = tmp_path / "out"
    result = chunklab("grade", "--jobs", "1", "--out", out, twice)
    assert result.exit_code == 0
    full = f"{result.reports[0]['max_score']:g}"
    assert rows_of(out / "gradebook_wide.csv")[1:] == [["alice", full, full], ["kim", full, full]]
