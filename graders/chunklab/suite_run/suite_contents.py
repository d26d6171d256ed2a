"""What a lesson's grader suite holds: each test with its rule, points and visibility.

One pytest collection, which runs nothing, answers every question asked of a
suite: its full marks, the public checks' full marks, the tests a student's
copy keeps, the rules the notebook states. Each test's markers are read as
grading reads them (the closest `rule`, `points` and `visibility` marker, be
it on the function, its class, its module or a `pytest.param`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from chunklab.errors import KitLayoutError
from chunklab.lessons import Lesson
from chunklab.suite_run.plugin import GradingPlugin
from chunklab.suite_run.pytest_run import grading_environment, pytest_arguments


@dataclass(frozen=True)
class SuiteTest:
    """One grader test as collection sees it."""

    path: Path
    # The function, or the class holding it, as written at the top of its file.
    name: str
    rule: str
    points: float
    visibility: str


@dataclass(frozen=True)
class SuiteRule:
    text: str
    # Checked by at least one public test, so the self-check covers it.
    public: bool


@dataclass(frozen=True)
class SuiteContents:
    """A suite's tests, in the order pytest collects them."""

    tests: tuple[SuiteTest, ...]

    @property
    def max_score(self) -> float:
        """Full marks of the lesson: the points of every grader test."""
        return sum(test.points for test in self.tests)

    @property
    def public_max_score(self) -> float:
        """Full marks of the self-check: the points of the public checks."""
        return sum(test.points for test in self.tests if test.visibility == "visible")

    def rules(self) -> list[SuiteRule]:
        """Every rule once, public files first, in the order the suites state them."""
        public_first = sorted(self.tests, key=lambda test: "visible" not in test.path.name)
        found: dict[str, bool] = {}
        for test in public_first:
            text = " ".join(test.rule.split())
            found[text] = found.get(text, False) or test.visibility == "visible"
        return [SuiteRule(text, public) for text, public in found.items()]


class _Collector:
    def __init__(self) -> None:
        self.tests: list[SuiteTest] = []
        self.problems: list[str] = []

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            found = [item.get_closest_marker(name) for name in ("rule", "points", "visibility")]
            values = [marker.args[0] for marker in found if marker is not None and marker.args]
            if len(values) < len(found):
                continue  # the grading plugin names the marker missing
            rule, points, visibility = values
            if not isinstance(rule, str) or not isinstance(visibility, str):
                # The notebook quotes rules word for word, so a rule must be a plain string.
                self.problems.append(f"{item.nodeid}: a rule/visibility marker must hold a string")
                continue
            holder = getattr(item, "cls", None)
            name = holder.__name__ if holder is not None else getattr(item, "originalname", "")
            self.tests.append(
                SuiteTest(Path(str(item.path)), name or item.name, rule, float(points), visibility)
            )


def suite_contents(lesson: Lesson) -> SuiteContents:
    """Every grader test of a lesson, found by collecting its suite."""
    collector, grading = _Collector(), GradingPlugin()
    with grading_environment():
        exit_code = pytest.main(
            pytest_arguments(lesson, "--collect-only"), plugins=[collector, grading]
        )
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        detail = f"pytest exit code {int(exit_code)}"
        raise KitLayoutError(f"the grader suite of {lesson.id} cannot be collected ({detail})")
    if problems := grading.problems + collector.problems:
        raise KitLayoutError(f"the grader suite of {lesson.id} is broken: {'; '.join(problems)}")
    return SuiteContents(tuple(collector.tests))
