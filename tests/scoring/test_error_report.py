"""The one report of a submission that could not be graded."""

from __future__ import annotations

from chunklab.errors import BrokenNotebookError
from chunklab.scoring.report import Problem, error_report, problem_of


def test_an_error_report_scores_nothing_and_keeps_the_lessons_full_marks() -> None:
    problem = Problem("syntax_error", "line 3: invalid syntax")
    report = error_report("char_chunk", "a.py", problem, max_score=10.0, student="a")
    record = report.to_json()
    assert (record["status"], record["score"], record["max_score"]) == ("error", 0.0, 10.0)
    assert (record["lesson"], record["student"], record["tests"]) == ("char_chunk", "a", [])
    assert record["errors"] == [{"kind": "syntax_error", "message": "line 3: invalid syntax"}]


def test_a_kit_error_is_told_by_its_kind_and_any_other_as_the_graders_failure() -> None:
    assert problem_of(BrokenNotebookError("cell 2 is not a cell")) == Problem(
        "broken_notebook", "cell 2 is not a cell"
    )
    internal = problem_of(KeyError("x"))
    assert internal.kind == "internal"
    assert internal.message.startswith("the grader failed on this submission (KeyError: 'x');")
