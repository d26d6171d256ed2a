"""The writers: pure functions from reports to text, and the files they make."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
import sys
from dataclasses import replace

import pytest

from chunklab.authoring.lesson_source import RuleGroup
from chunklab.authoring.rule_list import LEFTOVER_TITLE
from chunklab.class_out.csv_file import FORMULA_STARTS
from chunklab.class_out.gradebook import (
    RuleResult,
    best_entries,
    entry_of,
    gradebook_csv,
    gradebook_wide_csv,
    rule_results,
    rules_csv,
    summary,
)
from chunklab.report_out.files import report_file_name, write_json
from chunklab.report_out.gradescope import GradescopeOptions, gradescope_results, group_of
from chunklab.report_out.progress import ProgressBar
from chunklab.report_out.table import outline
from chunklab.sandbox.zygote import GAPS
from chunklab.scoring.report import GradeReport, Problem, TestOutcome

PASSED = TestOutcome("t1", "Rule one.", 1.0, "passed", "visible")
REPORT = GradeReport(
    lesson="char_chunk",
    submission="class/alice/char_chunk.py",
    status="graded",
    max_score=3.0,
    tests=(
        PASSED,
        TestOutcome("t2", "Rule two.", 2.0, "failed", "hidden", "Input: x\nExpected: y"),
    ),
    warnings=(Problem("cell_failed", "cell 3 raised"),),
    duration_s=0.1,
    isolation="namespaces",
)
# The report's table row, as the summary takes them.
ROW = outline(REPORT)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal():
    terminal = FakeTerminal()
    bar = ProgressBar(4, terminal, width=8)
    bar.advance()
    bar.advance()
    assert terminal.getvalue().endswith("\r[####....] 2/4")
    bar.finish()
    assert terminal.getvalue().endswith("\r")
    piped = io.StringIO()
    quiet = ProgressBar(4, piped)
    quiet.advance()
    quiet.finish()
    assert piped.getvalue() == ""


def test_report_file_names_are_flat_and_distinct():
    name = report_file_name("class/alice/char_chunk.py", "/srv/class/alice/char_chunk.py")
    assert name.startswith("class__alice__char_chunk.py-") and name.endswith(".json")
    assert report_file_name("./bob char_chunk.py", "/b").startswith("bob__char_chunk.py-")
    assert report_file_name("a/b.py", "/a/b.py") != report_file_name("a_b.py", "/a_b.py")


def test_json_files_are_written_whole(tmp_path):
    path = tmp_path / "deep" / "report.json"
    write_json(path, REPORT.to_json())
    assert json.loads(path.read_text()) == REPORT.to_json()
    assert [p.name for p in path.parent.iterdir()] == ["report.json"]


def test_summary_counts_statuses_and_lessons():
    error = replace(ROW, submission="bob.py", status="error", score=0.0)
    totals = summary([ROW, error], 2.5)
    assert totals["submissions"] == 2
    assert totals["statuses"] == {"graded": 1, "error": 1}
    assert totals["lessons"]["char_chunk"] == {"submissions": 2, "full_marks": 0, "mean_score": 0.5}


def test_a_submission_of_no_known_lesson_is_counted_under_a_name_that_says_so():
    unknown = replace(ROW, submission="notes.py", lesson=None, status="error", score=0.0)
    totals = summary([ROW, unknown], 1.0)
    assert sorted(totals["lessons"]) == ["(unknown)", "char_chunk"]
    assert totals["lessons"]["(unknown)"]["submissions"] == 1


def test_gradebook_rows_hold_student_percent_and_first_error():
    error = replace(
        REPORT,
        student="bob",
        submission="bob_char_chunk.py",
        status="error",
        tests=(),
        errors=(Problem("syntax_error", "Python cannot read\n your file"),),
    )
    entries = [entry_of(replace(REPORT, student="alice")), entry_of(error)]
    assert gradebook_csv(entries).splitlines() == [
        "student,lesson,score,max_score,percent,status,first_error,submission,roster,late,note",
        "alice,char_chunk,1,3,33.3,graded,,class/alice/char_chunk.py,,,",
        "bob,char_chunk,0,3,0,error,Python cannot read your file,bob_char_chunk.py,,,",
    ]
    assert rules_csv(entries).splitlines() == [
        "student,lesson,rule,outcome,points",
        "alice,char_chunk,Rule one.,passed,1",
        "alice,char_chunk,Rule two.,failed,0",
    ]


def test_a_rule_checked_by_several_tests_is_one_row_with_their_points():
    tests = [
        replace(PASSED, rule="R"),
        replace(PASSED, rule="R", outcome="timeout"),
        replace(PASSED, rule="R", outcome="failed"),
    ]
    assert rule_results(tests) == (RuleResult("R", "timeout", 1.0),)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_no_csv_cell_is_a_spreadsheet_formula(start):
    hostile = f'{start}HYPERLINK("http://x")'
    report = replace(
        REPORT, student=hostile, submission=hostile, tests=(replace(PASSED, rule=hostile),)
    )
    entries = [entry_of(report)]
    for text in (gradebook_csv(entries), gradebook_wide_csv(entries), rules_csv(entries)):
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
        # A tab or carriage return is shown as its escape, which no spreadsheet runs.
        assert ("'" + hostile if start.isprintable() else ascii(hostile)[1:-1]) in cells


def test_the_best_of_two_submissions_counts_once():
    low = entry_of(replace(REPORT, student="alice"))
    high = entry_of(replace(REPORT, student="alice", tests=(replace(PASSED, max_score=3.0),)))
    low = replace(low, submission="class/alice/old.py")
    [kept] = best_entries([low, high])
    assert replace(kept, note="") == high
    assert kept.note == (
        "handed in 2 times; the best score is kept, 3 from class/alice/char_chunk.py, "
        "over class/alice/old.py (1)"
    )


def test_gradescope_shape():
    results = gradescope_results(replace(REPORT, student="alice"))
    assert results["score"] == 1.0
    assert [t["visibility"] for t in results["tests"]] == ["visible", "after_published"]
    assert [t["name"] for t in results["tests"]] == ["Rule one.", "Rule two."]
    assert results["tests"][1]["output"] == "Input: x\nExpected: y"
    assert results["tests"][1]["status"] == "failed"
    assert results["output"] == "Notes on your submission (it was graded anyway):\ncell 3 raised"
    assert results["extra_data"]["student"] == "alice"
    chosen = GradescopeOptions(hidden_visibility="after_due_date", stdout_visibility="visible")
    results = gradescope_results(REPORT, chosen, {"submission_id": "7"})
    assert [t["visibility"] for t in results["tests"]] == ["visible", "after_due_date"]
    assert results["stdout_visibility"] == "visible"
    assert results["extra_data"]["submission_id"] == "7"


def test_what_the_sandbox_did_not_keep_apart_is_shown_to_instructors_alone():
    results = gradescope_results(replace(REPORT, isolation_gaps=("unconfined_files",)))
    *graded, sandbox = results["tests"]
    assert graded == gradescope_results(REPORT)["tests"]
    assert results["score"] == gradescope_results(REPORT)["score"]
    assert (sandbox["visibility"], sandbox["score"], sandbox["max_score"]) == ("hidden", 0.0, 0.0)
    assert sandbox["output"] == f"unconfined_files: {GAPS['unconfined_files']}"
    assert "unconfined_files" not in results["output"]  # the top-level output students see


def test_gradescope_tests_are_numbered_and_tagged_by_rule_group():
    """Tests carry the lesson text's rule group as their tag, numbered group by group."""
    tests = (
        replace(PASSED, rule="The window moves by size - overlap."),
        replace(PASSED, rule="Empty text gives []."),
        replace(PASSED, rule="A rule no group takes."),
    )
    groups = (RuleGroup("Windows", ("window",)), RuleGroup("Edges", ("empty",)))
    assert [group_of(t.rule, groups) for t in tests] == [
        (1, "Windows"),
        (2, "Edges"),
        (3, LEFTOVER_TITLE),
    ]
    results = gradescope_results(replace(REPORT, tests=tests * 2))
    numbers = [t["number"] for t in results["tests"]]
    assert len(set(numbers)) == len(numbers)
    assert all(t["tags"] and t["tags"][0] for t in results["tests"])


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o000])
def test_written_files_are_private_whatever_the_umask(tmp_path, umask):
    # Output files hold grades: readable by the grading user alone.
    target = tmp_path / "out" / "summary.json"
    code = (
        "import sys; from pathlib import Path; from chunklab.report_out.files import write_json; "
        "write_json(Path(sys.argv[1]), {'a': 1})"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(target)], check=True, preexec_fn=lambda: os.umask(umask)
    )
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert json.loads(target.read_text()) == {"a": 1}


def test_the_table_note_counts_rules_not_the_tests_that_check_them():
    public = TestOutcome("t3", "Rule two.", 1.0, "failed", "visible", "Input: z")
    other = TestOutcome("t4", "Rule three.", 1.0, "timeout", "hidden")
    report = replace(REPORT, tests=(*REPORT.tests, public, other))
    assert outline(report).note == "2 rule(s) broken, first: Rule two."
