"""Reports as typed records: every command's JSON in the schema, read back by one `from_json`."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import chunklab
from chunklab.lessons import LESSONS_DIR
from chunklab.report_out.resume import INDEX_NAME, ResumeIndex, ResumeKey
from chunklab.scoring.report import GradeReport, Problem, ReportFormatError, TestOutcome
from chunklab.suites.digest import KitVersion, suites_digest
from tests.conftest import KIT_ROOT

GRADESCOPE_SCHEMA = KIT_ROOT / "graders" / "chunklab" / "report_out" / "gradescope.schema.json"

REPORT = GradeReport(
    lesson="char_chunk",
    submission="class/bob_char_chunk.py",
    status="graded",
    tests=(
        TestOutcome("test_visible.py::test_a", "Rule a.", 2.0, "passed", "visible"),
        TestOutcome("test_hidden.py::test_b", "Rule b.", 1.5, "timeout", "hidden", "Input: x"),
    ),
    warnings=(Problem("printed_output", "it printed"),),
    duration_s=0.1235,
    max_score=3.5,
    isolation="namespaces",
    student="bob",
    isolation_gaps=("cpu_unpinned",),
)


@pytest.fixture(scope="module")
def small_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reference, a stub, a file Python cannot read and one whose lesson cannot be told."""
    folder = tmp_path_factory.mktemp("class")
    shutil.copy(KIT_ROOT / "solutions" / "char_chunk.py", folder / "a_char_chunk.py")
    shutil.copy(KIT_ROOT / "exercises" / "word_chunk.py", folder / "b_word_chunk.py")
    (folder / "c_chunking_pipeline.py").write_text("class ChunkingPipeline(:\n")
    (folder / "d_homework.py").write_text("x = 1\n")
    return folder


def test_a_report_reads_back_as_the_same_record() -> None:
    assert GradeReport.from_json(json.loads(json.dumps(REPORT.to_json()))) == REPORT


@pytest.mark.parametrize(
    "change",
    [
        {"status": "partial"},
        {"isolation": "container"},
        {"score": 3.5},  # not what the outcomes give
        {"tests": [{"name": "t", "rule": "r", "max_score": 1.0, "outcome": "skipped"}]},
        {"max_score": "3.5"},
        {"lesson": 7},
    ],
)
def test_a_report_this_version_would_not_write_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ReportFormatError):
        GradeReport.from_json({**REPORT.to_json(), **change})


def test_a_missing_field_is_refused() -> None:
    data = REPORT.to_json()
    del data["isolation"]
    with pytest.raises(ReportFormatError, match="isolation"):
        GradeReport.from_json(data)


def test_resume_reuses_only_reports_that_read_back(tmp_path: Path) -> None:
    good, bad = ResumeKey("/a.py", "char_chunk", "1"), ResumeKey("/b.py", "char_chunk", "2")
    broken = {**REPORT.to_json(), "status": "partial"}
    lines = [
        {"key": good.to_json(), "report": REPORT.to_json()},
        {"key": bad.to_json(), "report": broken},
    ]
    (tmp_path / INDEX_NAME).write_text("".join(json.dumps(line) + "\n" for line in lines))
    index = ResumeIndex(tmp_path, keep=True)
    assert index.previous(good) == REPORT
    assert index.previous(bad) is None


def test_resume_grades_again_what_other_suites_or_inputs_graded(tmp_path: Path) -> None:
    key = ResumeKey("/a.py", "char_chunk", "1")
    other_kit = replace(REPORT, kit=KitVersion(REPORT.kit.version, "sha256:" + "0" * 64))
    line = {"key": key.to_json(), "report": other_kit.to_json()}
    (tmp_path / INDEX_NAME).write_text(json.dumps(line) + "\n")
    assert ResumeIndex(tmp_path, keep=True).previous(key) is None


def test_a_report_names_the_kit_version_and_its_suites_digest() -> None:
    kit = REPORT.to_json()["kit"]
    assert kit == {"version": chunklab.__version__, "suites": suites_digest()}
    assert re.fullmatch("sha256:[0-9a-f]{64}", kit["suites"])


def test_the_suites_digest_changes_with_any_suite_file_or_hidden_input(tmp_path: Path) -> None:
    ignored = shutil.ignore_patterns("__pycache__")
    suites = shutil.copytree(LESSONS_DIR, tmp_path / "suites", ignore=ignored)
    assert suites_digest(suites) == suites_digest()
    inputs = suites / "char_chunk" / "hidden_inputs.json"
    inputs.write_text(inputs.read_text().replace('["", 1, 0]', '["", 2, 0]', 1))
    changed = suites_digest(suites)
    assert changed != suites_digest()
    (suites / "word_chunk" / "test_more.py").write_text("")
    assert suites_digest(suites) not in (changed, suites_digest())


def test_every_command_writes_reports_in_its_schema(
    chunklab, small_class: Path, tmp_path: Path, report_schema: dict[str, Any]
) -> None:
    """grade (stdout and --out files), check --json (sandbox and in-process), Gradescope."""
    out = tmp_path / "out"
    graded = chunklab("grade", "--jsonl", "--out", out, small_class)
    assert graded.exit_code == 0, graded.stderr
    written = [json.loads(p.read_text()) for p in sorted((out / "submissions").glob("*.json"))]
    checked = [
        json.loads(
            chunklab("check", lesson, KIT_ROOT / folder / f"{lesson}.py", "--json", *where).stdout
        )
        for lesson in ("char_chunk", "chunking_pipeline")
        for folder in ("exercises", "solutions")
        for where in ((), ("--in-process",))
    ]
    reports = graded.reports + written + checked
    assert [r["status"] for r in graded.reports] == ["graded", "graded", "error", "error"]
    assert [r["lesson"] for r in graded.reports] == [
        "char_chunk",
        "word_chunk",
        "chunking_pipeline",
        None,
    ]
    assert len(written) == 4 and len(checked) == 8
    for report in reports:
        jsonschema.validate(report, report_schema)
        assert GradeReport.from_json(report).to_json() == report

    gradescope = chunklab("grade", "--jsonl", "--format", "gradescope", small_class)
    schema = json.loads(GRADESCOPE_SCHEMA.read_text())
    assert len(gradescope.reports) == 4
    for result in gradescope.reports:
        jsonschema.validate(result, schema)


def test_mypy_makes_no_exception_for_any_module() -> None:
    """Loose typing is fixed where it is, never silenced for a module."""
    settings = (KIT_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.mypy]" in settings
    assert "[[tool.mypy.overrides]]" not in settings


def test_a_report_keeps_a_bounded_number_of_warnings_of_each_kind() -> None:
    skipped = tuple(
        Problem("file_skipped", f"notes{k}.ipynb was not looked into") for k in range(25)
    )
    magics = tuple(Problem("magic_skipped", f"cell {k}: %time skipped") for k in range(3))
    report = GradeReport("char_chunk", "s.py", "graded", warnings=skipped + magics)
    assert report.warnings == (
        *skipped[:20],
        *magics,
        Problem(
            "warnings_cut",
            "5 more file_skipped warnings were left out; only the first 20 are shown",
        ),
    )
    assert GradeReport.from_json(report.to_json()) == report
