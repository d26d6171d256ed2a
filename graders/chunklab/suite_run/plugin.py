"""The pytest plugin that connects a grader suite to the submissions it grades.

One pytest session grades a batch of submissions of one lesson: every
grader test is parametrized over them. A test's `submission` (a proxy, never
the submission's own objects) is opened at its first test and closed after its
last, so only one is running at a time; `reference` is the reference solution,
loaded in the grading process for hidden comparisons. The plugin hands a test
those two itself, as its arguments: pytest's fixtures, set up and torn down
around every test, cost more than most checks, and a grader test asks for
nothing else. Each test's `rule`, `points` and `visibility` markers and the
feedback for a failure are noted as its stages run, and each test's outcome is
made once it has ended, so scores come from the grading process's own notes and
nothing else.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Literal

import pytest

from chunklab.contract import CallTimedOut, WorkerCrashed, raised_name
from chunklab.errors import SubmissionError
from chunklab.scoring.outcomes import BuildsOn, outcome_of, settled
from chunklab.scoring.report import TestOutcome
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suite_run.tried_answers import AskedFirst, TriedInputs, calls_to_ask_first
from chunklab.suites.checks import RuleBroken, shorten
from chunklab.text import terminal_safe

MARKERS = (
    "rule(text): the lesson rule a grader test checks, in words a student understands",
    "points(n): what the test is worth",
    "visibility(kind): 'visible' (a public check) or 'hidden'",
    "call_seconds(n): own time each call of the test may take (at most --call-seconds), "
    "in place of the limit fitted to the reference solution's time on the call",
    "runs_last: the test runs after the submission's other tests: it may end the worker "
    "(or not, by its timings), and what the worker then holds must reach no other test",
)
MARKER_NAMES = ("rule", "points", "visibility", "call_seconds", "runs_last")


class EmptySlot(Exception):
    """A session's slot that found no submission left to grade: its tests are skipped."""


@dataclass(frozen=True)
class SuiteEntry:
    """A submission a suite run grades: how to open it (start and load it) and close it."""

    key: str
    # Raises SubmissionError when the submission cannot be tested at all.
    open: Callable[[], SubmissionProxy]
    close: Callable[[], None] = lambda: None


class GradingPlugin:
    def __init__(
        self,
        entries: Sequence[SuiteEntry] = (),
        *,
        reference: ModuleType | None = None,
        visible_only: bool = False,
    ) -> None:
        self.entries = {entry.key: entry for entry in entries}
        self.reference_module = reference
        self.visible_only = visible_only
        self.problems: list[str] = []
        self.load_errors: dict[str, SubmissionError] = {}
        self.open_proxies: dict[str, SubmissionProxy] = {}
        # Why a submission could not be opened: each of its tests is skipped saying so.
        self.not_opened: dict[str, str] = {}
        # The notes of each test still running, and whether its stages so far passed.
        self.running: dict[str, tuple[dict[str, Any], bool]] = {}
        # Each submission's outcomes, as its tests end, and those that said to fix a basic
        # rule first: whether that holds is known once all its tests have run.
        self.outcomes: dict[str, list[TestOutcome]] = {}
        self.building_on: dict[str, list[BuildsOn]] = {}
        # Each outcome's test, and the searches for an input to try that failed hidden
        # checks left (test, search, its calls' stated limit), run once the submission's
        # tests are done; what each found, by test.
        self.tests_of: dict[str, list[str]] = {}
        self.offers: dict[str, list[tuple[str, Callable[[], str]]]] = {}
        self.tried: dict[str, str] = {}
        # The inputs to try the hidden suites declare, and every call their searches may
        # make (made once, of the reference), asked of each submission before its tests.
        self.tried_inputs: list[TriedInputs] = []
        self.tried_calls: AskedFirst | None = None
        self.finished = False
        # The markers of each test function, by `marks_of`'s key.
        self.marks: dict[tuple[int, ...], dict[str, pytest.Mark | None]] = {}

    def pytest_configure(self, config: pytest.Config) -> None:
        for line in MARKERS:
            config.addinivalue_line("markers", line)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # A test file that cannot be imported (its kept inputs damaged, say) would
        # leave its tests out of every grade: the suite is broken, and says why.
        if report.failed:
            last = str(report.longrepr).strip().splitlines()[-1:] or ["(no detail)"]
            self.problems.append(f"{report.nodeid} cannot be collected: {last[0]}")

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "submission" in metafunc.fixturenames and self.entries:
            keys = list(self.entries)
            metafunc.parametrize("submission", keys, ids=keys, scope="session")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        for item in items:
            marks = self.marks_of(item)
            missing = [m for m in ("rule", "points", "visibility") if not marks[m]]
            if missing:
                self.problems.append(f"{item.nodeid} has no {', '.join(missing)} marker")
            others = [name for name in arguments_of(item) if name not in given_to(item)]
            if others:
                self.problems.append(f"{item.nodeid} asks for {', '.join(others)}: {ONLY_GIVEN}")
        if self.visible_only:
            hidden = [i for i in items if not self.visible(i)]
            items[:] = [i for i in items if self.visible(i)]
            config.hook.pytest_deselected(items=hidden)
        share_locations(items)
        tried: dict[int, TriedInputs] = {}
        for item in items:
            if not self.visible(item):
                for inputs in getattr(getattr(item, "module", None), "TRIED", ()):
                    tried.setdefault(id(inputs), inputs)
        self.tried_inputs = list(tried.values())
        # All tests of one submission together, visible ones first, those that run last
        # at the end: each submission is opened once, and its worker ends before the next
        # one starts.
        order: dict[str | None, int] = {key: number for number, key in enumerate(self.entries)}
        items.sort(
            key=lambda item: (
                order.get(submission_key(item), -1),
                not self.visible(item),
                self.marks_of(item)["runs_last"] is not None,
            )
        )

    def marks_of(self, item: pytest.Item) -> dict[str, pytest.Mark | None]:
        """The markers an item states, looked up once for all the items of its test function.

        Those items differ only in their parameters (the submission graded): the key is
        the item's parent, whose markers it inherits, its function, and its own marks
        (its function's and its parameters').
        """
        function = getattr(item, "function", item)
        key = (id(item.parent), id(function), *map(id, item.own_markers))
        marks = self.marks.get(key)
        if marks is None:
            marks = {name: item.get_closest_marker(name) for name in MARKER_NAMES}
            self.marks[key] = marks
        return marks

    def visible(self, item: pytest.Item) -> bool:
        return mark_value(self.marks_of(item)["visibility"]) == "visible"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        """A test's three stages, as pytest runs them, each reported to this plugin alone.

        pytest's own protocol also announces every test and every report to all
        plugins (for a terminal, a log, a debugger) and names the running test
        in the environment at each stage. A grading run has none of those, and
        it runs thousands of tests. A test's arguments are handed to it here
        (`_set_up`), not by pytest's fixtures.
        """
        if self._stage(item, "setup", lambda: self._set_up(item)):
            self._stage(item, "call", lambda: self._run(item))
        self._stage(item, "teardown", lambda: self._tear_down(item, nextitem))
        if isinstance(item, pytest.Function):
            item.funcargs = {}  # as pytest does once a test has ended: its arguments let go
        return True

    def _set_up(self, item: pytest.Item) -> None:
        """Hand the test its arguments: its submission, opened at its first test, the
        reference, and the values of its own parameters."""
        assert isinstance(item, pytest.Function)
        params = item.callspec.params if hasattr(item, "callspec") else {}
        given: dict[str, object] = {}
        for name in arguments_of(item):
            if name == "submission":
                given[name] = self._opened(item)
            elif name == "reference":
                given[name] = self._reference()
            elif name in params:
                given[name] = params[name]  # the test's own parametrize
            else:
                pytest.fail(f"{name}: {ONLY_GIVEN}")  # the suite is broken (see above)
        item.funcargs = given

    def _opened(self, item: pytest.Item) -> SubmissionProxy:
        """The item's submission, opened at its first test; the same skip for each of its
        tests when it could not be."""
        key = submission_key(item) or ""
        if key not in self.open_proxies and key not in self.not_opened:
            entry = self.entries[key]
            try:
                self.open_proxies[key] = entry.open()
            except EmptySlot:
                self.not_opened[key] = "no submission in this slot"
            except SubmissionError as error:
                self.load_errors[key] = error
                self.not_opened[key] = f"the submission could not be tested: {error}"
            else:
                self.ask_tries(self.open_proxies[key])
        if key in self.not_opened:
            pytest.skip(self.not_opened[key])
        return self.open_proxies[key]

    def _reference(self) -> ModuleType:
        if self.reference_module is None:
            pytest.fail("this check needs the reference solution, which is not available here")
        return self.reference_module

    def _tear_down(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        """After a submission's last test: the inputs to try of its failed checks, then its
        worker ends."""
        key = submission_key(item) or ""
        if nextitem is None or submission_key(nextitem) != key:
            self._close(key)

    def _close(self, key: str) -> None:
        proxy = self.open_proxies.pop(key, None)
        if proxy is not None:
            try:
                self.try_offers(key, proxy)
            finally:
                self.entries[key].close()

    def _stage(
        self,
        item: pytest.Item,
        when: Literal["setup", "call", "teardown"],
        run: Callable[[], object],
    ) -> bool:
        """Run one stage of a test, note what it tells of the test's outcome; whether it passed.

        No `TestReport` is made: nothing reads one (a grading run has no terminal, log
        or other plugin), and building one per stage, thousands of times a class, costs
        more than most checks. A failed stage's feedback comes from its exception (see
        `classify_failure`), never from pytest's rendering of a traceback, which reads and
        parses the source of every frame and costs more than the check: a submission that
        loops fails every test.
        """
        call = pytest.CallInfo.from_call(
            run, when=when, reraise=(pytest.exit.Exception, KeyboardInterrupt)
        )
        excinfo = call.excinfo
        if excinfo is not None and when == "call":
            offer = getattr(excinfo.value, "offer", None)
            if offer is not None:
                self.offers.setdefault(submission_key(item) or "", []).append((item.nodeid, offer))
        passed = excinfo is None
        self._note_stage(item, call, passed)
        return passed

    def _run(self, item: pytest.Item) -> None:
        # Each test starts afresh: a time-out in an earlier test is forgotten.
        proxy = self.open_proxies.get(submission_key(item) or "")
        if proxy is not None:
            proxy.begin_test(mark_value(self.marks_of(item)["call_seconds"]))
        item.runtest()

    def _note_stage(self, item: pytest.Item, call: pytest.CallInfo, passed: bool) -> None:
        notes, passed_so_far = self.running.pop(item.nodeid, ({}, True))
        notes.update(stage_notes(item, call, self.marks_of(item) if call.when == "setup" else {}))
        if call.when != "teardown":
            self.running[item.nodeid] = (notes, passed_so_far and passed)
            return
        key = str(notes.get("submission"))
        outcome = outcome_of(item.nodeid, notes, passed_so_far and passed)
        done = self.outcomes.setdefault(key, [])
        if outcome.outcome != "passed" and notes.get("builds_on"):
            waiting = BuildsOn(len(done), notes["builds_on"], notes["alone"])
            self.building_on.setdefault(key, []).append(waiting)
        done.append(outcome)
        self.tests_of.setdefault(key, []).append(item.nodeid)

    def ask_tries(self, proxy: SubmissionProxy) -> None:
        """Ask a submission just opened every call the searches for inputs to try may make,
        before any of its tests: what a search finds is then decided before any hidden
        input is sent (see `tried_answers.py`)."""
        if not self.tried_inputs or self.reference_module is None:
            return
        if self.tried_calls is None:
            self.tried_calls = calls_to_ask_first(
                tuple(self.tried_inputs), self.reference_module, SubmissionProxy
            )
        try:
            proxy.ask_tries_first(self.tried_calls)
        except (CallTimedOut, WorkerCrashed):
            pass  # the tests meet the same error, each with its own input named

    def try_offers(self, key: str, proxy: SubmissionProxy) -> None:
        """Search for the inputs to try of the submission's failed hidden checks, now that its
        tests are done, in the answers asked before them: no call reaches the submission."""
        offers = self.offers.pop(key, [])
        if not offers:
            return
        proxy.answer_from_tries()
        for test, find in offers:
            try:
                self.tried[test] = find()
            except Exception:  # a broken answer ends the search; the submission says why
                break

    def outcomes_of(self, key: str) -> list[TestOutcome]:
        """A submission's outcomes once its tests have all run (see `settled`), each failed
        hidden check's with the input it offers to try, if its search found one."""
        tried = [self.tried.get(test, "") for test in self.tests_of.get(key, [])]
        outcomes = [
            replace(outcome, feedback=f"{outcome.feedback}\n{found}") if found else outcome
            for outcome, found in zip(self.outcomes.get(key, []), tried, strict=True)
        ]
        building_on = [
            replace(waiting, alone=f"{waiting.alone}\n{tried[waiting.index]}")
            if tried[waiting.index]
            else waiting
            for waiting in self.building_on.get(key, [])
        ]
        return settled(outcomes, building_on)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # A run stopped between two tests of a submission (Ctrl-C) leaves it open.
        for key in list(self.open_proxies):
            self._close(key)
        self.finished = True


def stage_notes(
    item: pytest.Item, call: pytest.CallInfo, marks: dict[str, pytest.Mark | None]
) -> dict[str, Any]:
    """What a stage of a test tells of its outcome: its markers at setup (`marks`, the
    item's), a failure's feedback."""
    data: dict[str, Any] = {}
    if call.when == "setup":
        data = {
            "rule": str(mark_value(marks["rule"])),
            "points": float(mark_value(marks["points"]) or 0),
            "visibility": str(mark_value(marks["visibility"])),
            "submission": submission_key(item),
        }
    if call.excinfo is not None and call.when in ("setup", "call"):
        data["kind"], data["feedback"] = classify_failure(call.excinfo.value)
        if isinstance(call.excinfo.value, RuleBroken) and call.excinfo.value.builds_on:
            data["builds_on"] = call.excinfo.value.builds_on
            data["alone"] = call.excinfo.value.alone
    if call.excinfo is not None:
        # The report is made: the failure's frames (holding what the submission
        # returned) must not outlive the test, whoever keeps the exception.
        traceback.clear_frames(call.excinfo.tb)
    return data


def share_locations(items: list[pytest.Item]) -> None:
    """Work out where each grader test is written once, not once per submission.

    pytest finds an item's file and line (`Item.location`, a cached property)
    by searching the file system, for every item; the items of one test
    function differ only in their name.
    """
    found: dict[object, tuple[str, int | None]] = {}
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        function = item.function
        if function not in found:
            path, line, _ = item.location
            found[function] = (path, line)
        elif "location" not in item.__dict__:
            item.__dict__["location"] = (*found[function], item.getmodpath())


# What a grader test may ask for besides its own parameters, which the plugin hands it.
TEST_ARGUMENTS = ("submission", "reference")
ONLY_GIVEN = f"a grader test is given {' and '.join(TEST_ARGUMENTS)} and its own parameters only"


def given_to(item: pytest.Item) -> set[str]:
    """What a grader test may ask for: its submission, the reference, its own parameters."""
    spec = getattr(item, "callspec", None)
    return {*TEST_ARGUMENTS, *(spec.params if spec is not None else ())}


def arguments_of(item: pytest.Item) -> tuple[str, ...]:
    """The names a test function takes (pytest adds `request` for a fixture that asks)."""
    return tuple(name for name in getattr(item, "fixturenames", ()) if name != "request")


def submission_key(item: pytest.Item) -> str | None:
    spec = getattr(item, "callspec", None)
    return spec.params.get("submission") if spec is not None else None


def mark_value(mark: pytest.Mark | None) -> Any:
    return mark.args[0] if mark and mark.args else None


def classify_failure(error: BaseException) -> tuple[str, str]:
    """The outcome kind and the student's feedback for a failed test."""
    if isinstance(error, RuleBroken):
        return "failed", str(error)
    if isinstance(error, CallTimedOut):
        return "timeout", str(error)
    if isinstance(error, WorkerCrashed):
        return "error", str(error)
    call = getattr(error, "chunklab_call", None)
    if call is not None:
        return "failed", (
            f"Input: {call}\nIt raised {terminal_safe(raised_name(error))}: "
            f"{shorten(str(error), 160)}"
        )
    if isinstance(error, AssertionError):
        return "failed", shorten(str(error), 400)
    return "error", (
        f"This check could not finish ({type(error).__name__}: {shorten(str(error), 160)}). "
        "Look at what your code returns for this rule's inputs."
    )
