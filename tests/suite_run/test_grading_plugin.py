"""The pytest plugin that runs a suite over a batch: what it changes in pytest's items."""

from __future__ import annotations

import contextlib
import io
from functools import cached_property
from types import SimpleNamespace

import pytest

from chunklab.commands.check import check_source
from chunklab.kit import suite_dir
from chunklab.lessons import get_lesson
from chunklab.reading.read import read_submission
from chunklab.sandbox.limits import Limits
from chunklab.suite_run.plugin import (
    MARKER_NAMES,
    GradingPlugin,
    SuiteEntry,
    stage_notes,
    submission_key,
)
from chunklab.suite_run.pytest_run import pytest_arguments
from chunklab.suites.checks import RuleBroken


class Collected:
    """Each item's location as the plugin left it, and as pytest works it out itself."""

    def __init__(self) -> None:
        self.locations: list[tuple[tuple, tuple]] = []
        self.order: list[str | None] = []
        self.names: list[str] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        own = pytest.Item.location
        assert isinstance(own, cached_property)
        for item in items:
            self.locations.append((item.location, own.func(item)))
            self.order.append(submission_key(item))
            self.names.append(item.name)


def collect(lesson_id: str, keys: list[str]) -> Collected:
    entries = [SuiteEntry(key, lambda: None) for key in keys]  # never opened: only collected
    collected = Collected()
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(
            pytest_arguments(get_lesson(lesson_id), "--collect-only"),
            plugins=[GradingPlugin(entries), collected],
        )
    return collected


def grader_test_count(lesson_id: str) -> int:
    """How many grader tests a lesson's suite files define."""
    files = suite_dir(get_lesson(lesson_id)).glob("test_*.py")
    return sum(path.read_text().count("\ndef test_") for path in files)


def test_every_item_keeps_the_location_pytest_gives_it():
    collected = collect("chunking_pipeline", ["s0", "s1", "s2"])
    assert len(collected.locations) == 3 * grader_test_count("chunking_pipeline")
    for shared, own in collected.locations:
        assert shared == own
    names = {location[2] for location, _ in collected.locations}
    assert "test_defaults[s2]" in names


def test_the_tests_of_one_submission_run_together():
    collected = collect("char_chunk", ["s0", "s1"])
    tests = grader_test_count("char_chunk")
    assert tests > 1
    assert collected.order == ["s0"] * tests + ["s1"] * tests


@pytest.mark.parametrize("lesson_id", ["char_chunk", "word_chunk", "chunking_pipeline"])
def test_the_long_document_runs_after_every_other_test_of_its_submission(lesson_id):
    # It may end the worker, or not, by its timings: what the worker holds then must reach
    # no other test.
    collected = collect(lesson_id, ["s0", "s1"])
    tests = grader_test_count(lesson_id)
    assert collected.names[tests - 1] == "test_a_long_document[s0]"
    assert collected.names[2 * tests - 1] == "test_a_long_document[s1]"
    assert sum("test_a_long_document" in name for name in collected.names) == 2


def test_a_failed_check_s_frames_do_not_keep_what_the_submission_returned():
    # Whoever keeps the exception after the report (pytest keeps the last one), the
    # frames of the check must not keep a huge answer alive into later tests.
    def check() -> None:
        answer = ["x"] * 1000
        raise RuleBroken(f"Got: {len(answer)} chunks")

    try:
        check()
    except RuleBroken:
        excinfo = pytest.ExceptionInfo.from_current()
    call = SimpleNamespace(when="call", excinfo=excinfo)
    data = stage_notes(None, call, {})  # type: ignore[arg-type]
    assert data["feedback"] == "Got: 1000 chunks"
    assert excinfo.tb.tb_next is not None and excinfo.tb.tb_next.tb_frame.f_locals == {}


class Registered:
    """The names of the plugins a session has, once it is configured."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def pytest_configure(self, config: pytest.Config) -> None:
        plugins = config.pluginmanager.list_name_plugin()
        self.names = {name for name, plugin in plugins if plugin is not None}


def test_a_grading_session_has_no_plugin_that_works_at_every_test_for_nothing():
    registered = Registered()
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(
            pytest_arguments(get_lesson("char_chunk"), "--collect-only"),
            plugins=[GradingPlugin(), registered],
        )
    assert {"python", "runner", "fixtures"} <= registered.names
    # The grading plugin makes every report and outcome itself: nothing shows them,
    # captures output around each stage or turns them into JSON.
    unused = {"terminalreporter", "capturemanager", "skipping", "assertion", "pytest_jsonreport"}
    assert not unused & registered.names


def test_a_test_s_markers_are_looked_up_once_however_many_submissions_it_grades(monkeypatch):
    looked: list[str] = []
    look = pytest.Item.get_closest_marker

    def counted(self, name, default=None):
        looked.append(name)
        return look(self, name, default)

    monkeypatch.setattr(pytest.Item, "get_closest_marker", counted)
    collect("char_chunk", ["s0"])
    once = len(looked)
    looked.clear()
    collect("char_chunk", ["s0", "s1", "s2", "s3"])
    assert len(looked) == once == len(MARKER_NAMES) * grader_test_count("char_chunk")


def test_no_failed_test_s_traceback_is_rendered(monkeypatch, tmp_path):
    # A looping or raising submission fails every test; pytest's rendering of each
    # failure (reading and parsing the source of every frame) would cost more than
    # the tests. The outcome's feedback comes from the exception itself.
    rendered: list[object] = []
    render = pytest.ExceptionInfo.getrepr

    def counted(self, *args, **kwargs):
        rendered.append(self.type)
        return render(self, *args, **kwargs)

    monkeypatch.setattr(pytest.ExceptionInfo, "getrepr", counted)
    path = tmp_path / "char_chunk.py"
    path.write_text("def chunk(text, size, overlap):\n    while True:\n        pass\n")
    report = check_source(read_submission(path), Limits()).to_json()
    assert report["tests"] and {t["outcome"] for t in report["tests"]} == {"timeout"}
    assert all("did not finish in time" in t["feedback"] for t in report["tests"])
    assert rendered == []


def test_a_test_s_stages_are_noted_without_a_pytest_report(monkeypatch, tmp_path):
    # Nothing in a grading run reads pytest's reports, and a class runs thousands of
    # stages: each stage's outcome comes from its call alone.
    built: list[str] = []
    make = pytest.TestReport.__init__

    def counted(self, *args, **kwargs):
        built.append(args[0] if args else kwargs.get("nodeid", ""))
        make(self, *args, **kwargs)

    monkeypatch.setattr(pytest.TestReport, "__init__", counted)
    path = tmp_path / "char_chunk.py"
    # Windows that never overlap: some rules hold, others are broken.
    path.write_text(
        "def chunk(text, size, overlap):\n"
        "    if size <= 0 or overlap < 0 or overlap >= size:\n"
        "        raise ValueError('bad settings')\n"
        "    return [text[i:i + size] for i in range(0, len(text), size)]\n"
    )
    report = check_source(read_submission(path), Limits()).to_json()
    outcomes = {t["outcome"] for t in report["tests"]}
    assert outcomes == {"passed", "failed"}
    assert built == []


def test_a_grader_test_that_asks_for_anything_but_its_submission_breaks_the_suite(tmp_path):
    # The plugin hands a grader test its submission and the reference, and nothing else:
    # a test asking for another fixture would find none at grading time.
    (tmp_path / "test_extra.py").write_text(
        "import pytest\n"
        "@pytest.mark.rule('a rule')\n"
        "@pytest.mark.points(1)\n"
        "@pytest.mark.visibility('visible')\n"
        "@pytest.mark.parametrize('size', [3])\n"
        "def test_extra(submission, reference, size, tmp_path):\n"
        "    pass\n"
    )
    grading = GradingPlugin([SuiteEntry("s0", lambda: None)])
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(
            ["-p", "no:cacheprovider", "--rootdir", str(tmp_path), "--collect-only", str(tmp_path)],
            plugins=[grading],
        )
    [problem] = grading.problems
    asked, _, said = problem.partition(": ")
    assert asked.startswith("test_extra.py::test_extra[s0-3] asks for ")
    named = asked.split(" asks for ")[1].split(", ")
    assert "tmp_path" in named and "size" not in named
    assert said == "a grader test is given submission and reference and its own parameters only"
