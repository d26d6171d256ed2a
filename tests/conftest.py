"""Shared fixtures: the kit's folders and a way to run `chunklab` as a user would."""

from __future__ import annotations

import contextlib
import functools
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chunklab.cli import main
from chunklab.lessons import LESSONS
from chunklab.scoring.report import GradeReport

KIT_ROOT = Path(__file__).resolve().parent.parent
LESSON_IDS = tuple(LESSONS)


@dataclass(frozen=True)
class CommandResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def reports(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


# Grading the validate corpus (`validate_run`) is the longest setup of the suite; each
# test process that runs a test needing it grades the corpus once.
CORPUS_FIXTURES = ("validate_run", "corpus_graded")


@functools.cache
def uses_the_corpus(test_file: str) -> bool:
    """Whether a test file asks for the validate corpus (by its fixtures' names)."""
    try:
        source = (KIT_ROOT / test_file).read_text(encoding="utf-8")
    except OSError:
        return False
    return any(name in source for name in CORPUS_FIXTURES)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The test processes (pytest-xdist) take a file's tests together, so its fixtures are
    made once, and the files that use the validate corpus together, so it is graded once."""
    from xdist.scheduler import LoadFileScheduling

    class CorpusTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            test_file = super()._split_scope(nodeid)
            return "the validate corpus" if uses_the_corpus(test_file) else test_file

    return CorpusTogether(config, log)


@pytest.fixture
def kit_root() -> Path:
    return KIT_ROOT


@pytest.fixture
def chunklab(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CommandResult]:
    """Run `chunklab ARGS...` in this process, from the kit's folder."""
    monkeypatch.chdir(KIT_ROOT)

    def run(*args: str | Path) -> CommandResult:
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse exits on a usage error
            code = int(exit_.code or 0)
        out, err = capsys.readouterr()
        return CommandResult(code, out, err)

    return run


@dataclass(frozen=True)
class ValidateRun:
    """`chunklab validate` as a user runs it, and the report of every file it graded."""

    result: CommandResult
    reports: dict[Path, GradeReport]


@pytest.fixture(scope="session")
def validate_run() -> ValidateRun:
    """`chunklab validate`, run once in this session, in this process, from the kit's folder.

    Grading the corpus is most of a test run's time: the tests that need its reports
    take them from this run rather than grade it again.
    """
    from chunklab.commands import validate

    graded: dict[Path, GradeReport] = {}
    grade_many = validate.grade_many

    def keeping(items: list, *args: Any) -> Any:
        paths = dict(items)
        for n, report in grade_many(items, *args):
            graded[paths[n].path] = report
            yield n, report

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validate, "grade_many", keeping)
        patch.chdir(KIT_ROOT)
        printed, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            code = main(["validate"])
    return ValidateRun(CommandResult(code, printed.getvalue(), errors.getvalue()), graded)


@pytest.fixture(scope="session")
def corpus_graded(validate_run: ValidateRun) -> dict[Path, GradeReport]:
    """Every file of the validate corpus (references, valid alternatives, stubs, known
    mistakes), as `chunklab validate` graded it (the default limits), by path. Each is
    labelled by its path, as `SubmissionPath(path, str(path))`."""
    from chunklab.authoring.validation import expectations
    from chunklab.kit import find_kit

    kit = find_kit()
    paths = [case.path for lesson in LESSONS.values() for case in expectations(kit, lesson)]
    assert set(paths) <= set(validate_run.reports), "validate left a file of its corpus out"
    return {path: validate_run.reports[path] for path in paths}


@pytest.fixture(scope="session")
def report_schema() -> dict[str, Any]:
    from chunklab.report_out.report_schema import report_schema

    return report_schema()


@pytest.fixture
def validate_report(report_schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    import jsonschema

    def check(report: dict[str, Any]) -> None:
        jsonschema.validate(report, report_schema)

    return check
