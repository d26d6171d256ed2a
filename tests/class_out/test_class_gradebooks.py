"""A class of student folders and a roster, to the gradebooks and the LMS files, cell by cell."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from chunklab.class_out.roster import RosterColumns, read_roster
from chunklab.errors import UsageError

NO_SUBMISSION = "no submission was found for this student and lesson"
CANVAS_ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n"
    "    Points Possible,,,,\n"
    '"A, Alice",101,s1,alice,Sec1\n'
    '"B, Bob",102,s2,bob,Sec1\n'
    '"C, Carol",103,s3,Carol,Sec2\n'
    '"D, Dan",104,s4,dan,Sec2\n'
)
MOODLE_ROSTER = (
    "First name,Last name,ID number,Institution,Department,Email address\n"
    "Alice,A,1001,U,CS,alice@uni.example\n"
    "Bob,B,1002,U,CS,bob@uni.example\n"
    "Carol,C,1003,U,CS,carol@uni.example\n"
    "Dan,D,1004,U,CS,dan@uni.example\n"
)


def rows_of(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


@pytest.fixture
def school(tmp_path: Path, kit_root: Path) -> Path:
    """alice: two lessons (one a stub); bob: a syntax error; carol and zed: one file each."""
    folder = tmp_path / "class"
    (folder / "alice").mkdir(parents=True)
    (folder / "bob").mkdir()
    (folder / "alice" / "char_chunk.py").write_bytes(
        (kit_root / "solutions/char_chunk.py").read_bytes()
    )
    (folder / "alice" / "word_chunk.py").write_bytes(
        (kit_root / "exercises/word_chunk.py").read_bytes()
    )
    (folder / "bob" / "char_chunk.py").write_text("def chunk(text, size, overlap)\n    return []\n")
    (folder / "carol_word_chunk.py").write_bytes(
        (kit_root / "solutions/word_chunk.py").read_bytes()
    )
    (folder / "zed_char_chunk.py").write_bytes((kit_root / "solutions/char_chunk.py").read_bytes())
    return folder


def test_a_class_with_a_roster_gives_three_gradebooks_and_the_lms_files(chunklab, tmp_path, school):
    roster = tmp_path / "canvas.csv"
    roster.write_text(CANVAS_ROSTER)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", roster, "--lms", "canvas", school
    )
    # zed is in no roster: everything is written, and the exit status says so.
    assert result.exit_code == 4
    reports = {(r["student"], r["lesson"]): r for r in result.reports}
    assert list(reports) == [
        ("alice", "char_chunk"),
        ("alice", "word_chunk"),
        ("bob", "char_chunk"),
        ("carol", "word_chunk"),
        ("zed", "char_chunk"),
    ]
    c = f"{reports['alice', 'char_chunk']['max_score']:g}"
    w = f"{reports['alice', 'word_chunk']['max_score']:g}"
    syntax = " ".join(reports["bob", "char_chunk"]["errors"][0]["message"].split())
    assert "line 1" in syntax

    def sub(student: str, lesson: str) -> str:
        return reports[student, lesson]["submission"]

    assert rows_of(out / "gradebook.csv") == [
        ["student", "lesson", "score", "max_score", "percent", "status", "first_error",
         "submission", "roster", "late", "note"],
        ["alice", "char_chunk", c, c, "100", "graded", "", sub("alice", "char_chunk"), "", "", ""],
        ["alice", "word_chunk", "0", w, "0", "graded", "", sub("alice", "word_chunk"), "", "", ""],
        ["bob", "char_chunk", "0", c, "0", "error", syntax, sub("bob", "char_chunk"), "", "", ""],
        # The roster's spelling of a name is the one the gradebook uses.
        ["Carol", "word_chunk", w, w, "100", "graded", "", sub("carol", "word_chunk"), "", "", ""],
        ["zed", "char_chunk", c, c, "100", "graded", "", sub("zed", "char_chunk"),
         "not in roster", "", ""],
        ["bob", "word_chunk", "0", w, "0", "missing", NO_SUBMISSION, "", "", "", ""],
        ["Carol", "char_chunk", "0", c, "0", "missing", NO_SUBMISSION, "", "", "", ""],
        ["dan", "char_chunk", "0", c, "0", "missing", NO_SUBMISSION, "", "", "", ""],
        ["dan", "word_chunk", "0", w, "0", "missing", NO_SUBMISSION, "", "", "", ""],
    ]  # fmt: skip
    assert rows_of(out / "gradebook_wide.csv") == [
        ["student", "char_chunk", "word_chunk", "total"],
        ["alice", c, "0", c],
        ["bob", "0", "0", "0"],
        ["Carol", "0", w, w],
        ["zed", c, "0", c],
        ["dan", "0", "0", "0"],
    ]
    assert rows_of(out / "gradebook_canvas.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "char_chunk", "word_chunk"],
        ["Points Possible", "", "", "", "", c, w],
        # Graded cells hold the grade (bob's syntax error earned 0); nothing handed in is empty.
        ["A, Alice", "101", "s1", "alice", "Sec1", c, "0"],
        ["B, Bob", "102", "s2", "bob", "Sec1", "0", ""],
        ["C, Carol", "103", "s3", "Carol", "Sec2", "", w],
        ["D, Dan", "104", "s4", "dan", "Sec2", "", ""],
    ]
    rules = rows_of(out / "rules.csv")
    assert rules[0] == ["student", "lesson", "rule", "outcome", "points"]
    expected = []
    for (student, lesson), report in reports.items():
        points: dict[str, float] = {}
        outcome: dict[str, str] = {}
        for test in report["tests"]:
            points[test["rule"]] = points.get(test["rule"], 0.0) + test["score"]
            if outcome.get(test["rule"], "passed") == "passed":
                outcome[test["rule"]] = test["outcome"]
        name = "Carol" if student == "carol" else student
        expected += [[name, lesson, r, outcome[r], f"{points[r]:g}"] for r in points]
    assert rules[1:] == expected
    assert {row[3] for row in rules[1:] if row[0] == "alice" and row[1] == "char_chunk"} == {
        "passed"
    }
    assert not [row for row in rules if row[0] in ("bob", "dan")]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["not_in_roster"] == ["zed"]
    assert summary["statuses"] == {"graded": 4, "error": 1, "missing": 4}
    assert summary["roster"] == {
        "matched": 4, "unmatched": 1, "missing": 1, "match_rate": 0.8,
        "unmatched_submissions": [sub("zed", "char_chunk")], "missing_students": ["dan"],
    }  # fmt: skip
    assert "zed_char_chunk.py is by zed, who is not in the roster" in result.stderr
    assert "roster: 4 of 5 submission(s) matched (80%)" in result.stderr
    assert ">Unmatched</dt><dd>" in (out / "report.html").read_text()


def test_a_moodle_roster_matches_students_by_email_and_gives_moodles_file(
    chunklab, tmp_path, school
):
    roster = tmp_path / "moodle.csv"
    roster.write_text(MOODLE_ROSTER)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", roster, "--lms", "moodle",
        "--lesson", "char_chunk", "--allow-unmatched", school,
    )  # fmt: skip
    assert result.exit_code == 0
    c = f"{result.reports[0]['max_score']:g}"
    rows = rows_of(out / "gradebook_moodle.csv")
    assert [row[:5] for row in rows] == [
        ["First name", "Last name", "ID number", "Email address", "char_chunk"],
        ["Alice", "A", "1001", "alice@uni.example", c],
        ["Bob", "B", "1002", "bob@uni.example", "0"],
        ["Carol", "C", "1003", "carol@uni.example", "0"],
        ["Dan", "D", "1004", "dan@uni.example", ""],
    ]
    assert rows[0][5] == "char_chunk feedback"
    assert rows[1][5] == f"{c} of {c} points; the feedback file says rule by rule."
    wide = rows_of(out / "gradebook_wide.csv")
    assert wide[0] == ["student", "char_chunk", "total"]
    assert [row[0] for row in wide[1:]] == [
        "alice@uni.example",
        "bob@uni.example",
        "carol@uni.example",
        "zed",
        "dan@uni.example",
    ]
    statuses = {(row[0], row[5]) for row in rows_of(out / "gradebook.csv")[1:]}
    # carol's file is her word_chunk, graded here as char_chunk: it defines no `chunk`.
    assert ("carol@uni.example", "error") in statuses
    assert ("dan@uni.example", "missing") in statuses


def test_roster_columns_can_be_named_and_a_wrong_name_is_a_usage_error(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("login,lms,name\namy,9,Amy Z\n")
    with pytest.raises(UsageError, match="--roster-student"):
        read_roster(path)
    roster = read_roster(path, RosterColumns(student="login", lms_id="lms", name="name"))
    [amy] = roster.students
    assert (amy.key, amy.lms_id, amy.name) == ("amy", "9", "Amy Z")
    assert roster.find("AMY") == amy
    with pytest.raises(UsageError, match="no column 'email'"):
        read_roster(path, RosterColumns(student="email"))


def test_without_an_lms_file_the_unmatched_are_said_to_be_flagged_in_the_gradebook(
    chunklab, tmp_path, kit_root
):
    folder = tmp_path / "class"
    folder.mkdir()
    for student in ("alice", "zed"):
        (folder / f"{student}_char_chunk.py").write_bytes(
            (kit_root / "solutions/char_chunk.py").read_bytes()
        )
    roster = tmp_path / "roster.csv"
    roster.write_text("username\nalice\n")
    result = chunklab("grade", "--jobs", "1", "--out", tmp_path / "out", "--roster", roster, folder)
    assert result.exit_code == 4
    assert (
        "1 submission(s) match no roster student: their grades are flagged `not in roster` in "
        "gradebook.csv (exit status 4; --allow-unmatched makes it 0)"
    ) in result.stderr
