"""Runs a lesson's grader suite with pytest, in this process."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType

import pytest

from chunklab.errors import KitLayoutError, SubmissionError
from chunklab.kit import suite_dir
from chunklab.lessons import Lesson
from chunklab.scoring.outcomes import visible_first
from chunklab.scoring.report import TestOutcome
from chunklab.suite_run.plugin import GradingPlugin, SuiteEntry
from chunklab.suite_run.submission_proxy import SubmissionProxy

# Built-in plugins a grading run has no use for: each one costs time at every test or
# at every session's end, and a grading session runs thousands of tests. The grading
# plugin makes the reports and outcomes; nothing is shown, captured or rewritten.
UNUSED_PLUGINS = (
    "terminal",
    "capture",
    "skipping",
    "assertion",
    "legacypath",
    "cacheprovider",
    "stepwise",
    "unraisableexception",
    "threadexception",
    "faulthandler",
    "doctest",
    "junitxml",
    "pastebin",
    "logging",
    "warnings",
    "debugging",
    "setuponly",
    "setupplan",
    "unittest",
    "subtests",
    "tmpdir",
    "monkeypatch",
    "recwarn",
)

PYTEST_ARGS = (
    # Only the plugins named here: whatever else is installed (pytest-randomly, coverage,
    # Hypothesis's own plugin) must neither reorder, slow down nor change a grading run.
    "--disable-plugin-autoload",
    *(arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")),
    "-o",
    "python_files=test_*.py",
    "-o",
    "addopts=",
    "-o",
    "testpaths=",
)


# Settings the environment may hand pytest (`-x`, extra plugins): they would change
# what a grading run tests, so it never takes them.
IGNORED_ENVIRONMENT = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


@contextlib.contextmanager
def grading_environment() -> Iterator[None]:
    """pytest's own output kept off stdout (it carries JSON Lines), and no outside settings."""
    saved = {name: os.environ.pop(name) for name in IGNORED_ENVIRONMENT if name in os.environ}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        os.environ.update(saved)


@dataclass(frozen=True)
class SuiteRun:
    """What one pytest session found: outcomes per submission, and those it could not test."""

    outcomes: dict[str, list[TestOutcome]]
    load_errors: dict[str, SubmissionError]


def pytest_arguments(lesson: Lesson, *extra: str) -> list[str]:
    directory = suite_dir(lesson)
    # The suites' own ini keeps the kit's pytest settings (pyproject) out of grading runs.
    return [
        *PYTEST_ARGS,
        *extra,
        "--rootdir",
        str(directory),
        "-c",
        str(directory.parent / "pytest.ini"),
        str(directory),
    ]


def run_suites(
    lesson: Lesson,
    entries: Sequence[SuiteEntry],
    *,
    reference: ModuleType | None = None,
    visible_only: bool = False,
) -> SuiteRun:
    """Run the lesson's grader tests against every entry, in one pytest session."""
    grading = GradingPlugin(entries, reference=reference, visible_only=visible_only)
    with grading_environment():
        exit_code = pytest.main(pytest_arguments(lesson), plugins=[grading])
    if (
        grading.problems
        or not grading.finished
        or exit_code
        in (
            pytest.ExitCode.INTERNAL_ERROR,
            pytest.ExitCode.USAGE_ERROR,
            pytest.ExitCode.NO_TESTS_COLLECTED,
        )
    ):
        detail = "; ".join(grading.problems) or f"pytest exit code {int(exit_code)}"
        raise KitLayoutError(f"the grader suite of {lesson.id} is broken: {detail}")
    return SuiteRun(
        outcomes={
            entry.key: visible_first(grading.outcomes_of(entry.key))
            for entry in entries
            if entry.key not in grading.load_errors
        },
        load_errors=dict(grading.load_errors),
    )


def run_suite(
    lesson: Lesson,
    proxy: SubmissionProxy,
    *,
    reference: ModuleType | None = None,
    visible_only: bool = False,
) -> list[TestOutcome]:
    """The outcomes of one submission that is already running behind `proxy`."""
    run = run_suites(
        lesson,
        [SuiteEntry("submission", lambda: proxy)],
        reference=reference,
        visible_only=visible_only,
    )
    return run.outcomes["submission"]
