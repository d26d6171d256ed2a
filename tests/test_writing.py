"""The writers: pure functions from reports to text, and the files they make."""

from __future__ import annotations

import io
import json

from chunklab.writing.files import report_file_name, write_json
from chunklab.writing.gradebook import gradebook_csv, summary
from chunklab.writing.gradescope import gradescope_results
from chunklab.writing.progress import ProgressBar

REPORT = {
    "lesson": "char_chunk",
    "submission": "class/alice/char_chunk.py",
    "status": "graded",
    "score": 1.0,
    "max_score": 3.0,
    "tests": [
        {
            "name": "t1",
            "rule": "Rule one.",
            "score": 1.0,
            "max_score": 1.0,
            "outcome": "passed",
            "visibility": "visible",
            "feedback": "",
        },
        {
            "name": "t2",
            "rule": "Rule two.",
            "score": 0.0,
            "max_score": 2.0,
            "outcome": "failed",
            "visibility": "hidden",
            "feedback": "Input: x\nExpected: y",
        },
    ],
    "errors": [],
    "warnings": [{"kind": "cell_failed", "message": "cell 3 raised"}],
    "duration_s": 0.1,
    "isolation": "namespaces",
}


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
    write_json(path, REPORT)
    assert json.loads(path.read_text()) == REPORT
    assert [p.name for p in path.parent.iterdir()] == ["report.json"]


def test_gradebook_and_summary():
    error = {**REPORT, "submission": "bob.py", "status": "error", "score": 0.0, "tests": []}
    lines = gradebook_csv([REPORT, error]).splitlines()
    assert lines == [
        "submission,lesson,score,max_score,status",
        "class/alice/char_chunk.py,char_chunk,1.0,3.0,graded",
        "bob.py,char_chunk,0.0,3.0,error",
    ]
    totals = summary([REPORT, error], 2.5)
    assert totals["submissions"] == 2
    assert totals["statuses"] == {"graded": 1, "error": 1}
    assert totals["lessons"]["char_chunk"] == {"submissions": 2, "full_marks": 0, "mean_score": 0.5}


def test_gradescope_shape():
    results = gradescope_results(REPORT)
    assert results["score"] == 1.0
    assert [t["visibility"] for t in results["tests"]] == ["visible", "after_published"]
    assert results["tests"][1]["output"] == "Rule two.\nInput: x\nExpected: y"
    assert results["tests"][1]["status"] == "failed"
    assert results["output"] == "cell_failed: cell 3 raised"
