"""Shared fixtures: the kit's folders and a way to run `chunklab` as a user would."""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def corpus_graded() -> dict[Path, GradeReport]:
    """Every file of the validate corpus (references, valid alternatives, stubs, known
    mistakes), graded once in this session with the default limits, by path. Each is
    labelled by its path, as `SubmissionPath(path, str(path))`."""
    from chunklab.authoring.validation import expectations
    from chunklab.kit import find_kit
    from chunklab.pipeline.parallel import grade_many
    from chunklab.reading.read import SubmissionPath
    from chunklab.sandbox.limits import Limits

    kit = find_kit()
    paths = [case.path for lesson in LESSONS.values() for case in expectations(kit, lesson)]
    items = [(n, SubmissionPath(path, str(path))) for n, path in enumerate(paths)]
    reports = dict(grade_many(items, None, kit, Limits(), 2))
    return {path: reports[n] for n, path in enumerate(paths)}


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
