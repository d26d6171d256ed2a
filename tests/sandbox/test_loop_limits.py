"""Loops cost little and change no score: limits fitted to each call, in a real sandbox."""

from __future__ import annotations

import json
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chunklab.contract import CallTimedOut, CallWaited, CodeCell, WorkerCrashed
from chunklab.kit import find_kit, load_reference
from chunklab.lessons import LESSONS
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox import backend as backend_module
from chunklab.sandbox import fitted_limits
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.call_watch import WALL_FACTOR, CallLimit
from chunklab.sandbox.fitted_limits import ReferenceTimes, call_seconds
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.plugin import MARKERS
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.checks import send_ahead

KIT = Path(__file__).resolve().parents[2]
LIMITS = Limits(call_seconds=2.0, submission_seconds=30.0)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS)) as started:
        yield started


@pytest.fixture
def backend_of(zygote: Zygote) -> Iterator[Callable[..., SandboxBackend]]:
    made: list[SandboxBackend] = []

    def make(source: str, limits: Limits = LIMITS, reference=None) -> SandboxBackend:
        backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", source),), limits, reference)
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()


def floor(spinning: bool = False) -> float:
    return call_seconds(LIMITS, None, spinning=spinning, stated=None)


def timeout_of(proxy: SubmissionProxy, call: Callable[[], object]) -> str:
    proxy.begin_test()
    with pytest.raises(CallTimedOut) as stopped:
        call()
    return str(stopped.value)


@pytest.fixture
def limits_given(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The own-time limit the backend gives each call, in order."""
    given: list[float] = []
    real = fitted_limits.call_seconds

    def noted(*args: Any, **kwargs: Any) -> float:
        given.append(real(*args, **kwargs))
        return given[-1]

    monkeypatch.setattr(fitted_limits, "call_seconds", noted)
    return given


def test_after_a_first_timeout_later_tests_get_the_shorter_floor_and_still_pass(
    backend_of, limits_given
):
    backend = backend_of(
        "def spin():\n    while True:\n        pass\ndef fine(n):\n    return sum(range(n))\n"
    )
    backend.load()
    proxy = SubmissionProxy(backend)
    assert "did not finish in time" in timeout_of(proxy, proxy.spin)
    assert "did not finish in time" in timeout_of(proxy, proxy.spin)
    assert limits_given == [floor(), floor(spinning=True)]
    proxy.begin_test()
    assert proxy.fine(1000) == 499500  # each test still graded on its own


def test_a_call_the_reference_needs_long_for_gets_room_in_proportion(backend_of):
    reference = ReferenceTimes(load_reference(find_kit(), LESSONS["char_chunk"]))
    slow = KIT / "solutions" / "alternatives" / "char_chunk" / "slow_character_by_character.py"
    backend = backend_of(slow.read_text(), reference=reference)
    backend.load()
    proxy = SubmissionProxy(backend)
    proxy.begin_test()
    text = "a somewhat long text to chunk " * 3000
    assert proxy.chunk(text, 7, 3) == load_reference(find_kit(), LESSONS["char_chunk"]).chunk(
        text, 7, 3
    )


# Computes for about `seconds` of its own CPU time.
WORK = (
    "import time\n"
    "def work(seconds):\n"
    "    end = time.process_time() + seconds\n"
    "    while time.process_time() < end:\n"
    "        pass\n"
    "    return 1\n"
    "def nap(seconds):\n"
    "    time.sleep(seconds)\n"
    "    return 1\n"
)


def test_a_stated_limit_is_the_limit_of_each_call_of_that_test(backend_of, limits_given):
    backend = backend_of(WORK, reference=ReferenceTimes(None))
    backend.load()
    proxy = SubmissionProxy(backend)
    assert "did not finish in time" in timeout_of(proxy, lambda: proxy.work(0.3))
    proxy.begin_test(call_seconds=1.5)
    assert proxy.work(0.3) == 1
    assert limits_given == [floor(), 1.5]
    assert any(line.startswith("call_seconds(n)") for line in MARKERS)


def test_a_stated_limit_is_used_without_timing_the_reference(backend_of):
    timed: list[object] = []
    reference = ReferenceTimes(None)
    reference.mirror = lambda: types.SimpleNamespace(  # type: ignore[method-assign]
        note=lambda message: None, seconds=lambda message: timed.append(message)
    )
    backend = backend_of(WORK, reference=reference)
    backend.load()
    proxy = SubmissionProxy(backend)
    proxy.begin_test(call_seconds=1.5)
    assert proxy.work(0.05) == 1  # running at the first look, when its limit is needed
    assert timed == []


def test_a_call_that_only_waits_is_stopped_by_the_clock_at_a_multiple_of_its_limit(backend_of):
    backend = backend_of(WORK)
    backend.load()
    proxy = SubmissionProxy(backend)
    proxy.begin_test()
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match="or for a wait that never ends, such as a sleep"):
        proxy.nap(30)
    waited = time.monotonic() - started
    assert WALL_FACTOR * floor() <= waited < 10 * WALL_FACTOR * floor()


def known_to_wait(backend: SandboxBackend) -> list[bool]:
    """Whether each call's limit is that of a submission known to wait, in order."""
    given: list[bool] = []
    real = backend._own_limit

    def noted(*args: Any, **kwargs: Any) -> CallLimit:
        limit = real(*args, **kwargs)
        given.append(limit.known_to_wait)
        return limit

    backend._own_limit = noted  # type: ignore[method-assign]
    return given


WAITS = (
    "import threading\n"
    "def work_in_a_thread(seconds):\n"
    "    done = []\n"
    "    thread = threading.Thread(target=lambda: done.append(work(seconds)))\n"
    "    thread.start()\n"
    "    thread.join()\n"
    "    return done[0]\n"
)


def test_after_a_call_stopped_by_the_clock_later_waits_are_stopped_far_sooner(backend_of):
    backend = backend_of(WORK + WAITS)
    backend.load()
    flags = known_to_wait(backend)
    proxy = SubmissionProxy(backend)
    waits = []
    for _ in range(2):
        proxy.begin_test()
        started = time.monotonic()
        with pytest.raises(CallWaited, match="or for a wait that never ends, such as a sleep"):
            proxy.nap(30)
        waits.append(time.monotonic() - started)
    assert flags == [False, True]
    # The first wait is stopped at ten times the floor (1 s), the second at twice the
    # shorter floor of a submission that spins, and a margin.
    assert waits[1] < waits[0] / 2
    # Calls that compute, on the main thread or another, are stopped by their own time.
    for call in (proxy.work, proxy.work_in_a_thread):
        proxy.begin_test(call_seconds=0.5)
        assert call(0.3) == 1
    assert flags[-2:] == [True, True]


def test_a_call_stopped_by_its_own_time_leaves_the_clock_as_generous(backend_of):
    backend = backend_of(WORK + "def spin():\n    while True:\n        pass\n")
    backend.load()
    flags = known_to_wait(backend)
    proxy = SubmissionProxy(backend)
    proxy.begin_test()
    with pytest.raises(CallTimedOut) as stopped:
        proxy.spin()
    assert not isinstance(stopped.value, CallWaited)
    proxy.begin_test()
    with pytest.raises(CallWaited):
        proxy.nap(30)
    assert flags == [False, False]


def test_memory_that_keeps_growing_is_stopped_before_the_memory_limit(backend_of):
    backend = backend_of(
        "def hoard():\n    kept = []\n    while True:\n        kept.append('x' * 4096)\n",
        # Room above what a worker reserves at its start, so the growth shows first.
        Limits(call_seconds=30.0, submission_seconds=60.0, memory_mb=2048),
    )
    backend.load()
    proxy = SubmissionProxy(backend)
    proxy.begin_test(call_seconds=30.0)
    with pytest.raises(CallTimedOut, match="kept taking more memory"):
        proxy.hoard()


def test_loading_counts_toward_the_submission_time(backend_of):
    backend = backend_of(
        "import time\nend = time.process_time() + 0.15\nwhile time.process_time() < end:\n"
        "    pass\ndef chunk():\n    return []\n"
    )
    backend.load()
    # The 0.15 s spent at the top level, less the slack a count may lag by: a busy
    # machine's scheduler may bring a count up to date a few ticks late.
    assert 0.1 <= backend.spent and backend.spent_wall >= backend.spent - 0.02


def test_a_request_looks_at_the_worker_when_sent_and_once_when_answered(
    backend_of, monkeypatch
):
    # Each look reads three of the worker's counters: its own time and its time by the
    # clock are both counted from the look taken once the answer is in.
    backend = backend_of("def chunk():\n    return []\n")
    backend.load()
    worker = backend.worker
    assert worker is not None
    looks: list[float] = []
    look = type(worker).own_mark

    def counted(self):
        looks.append(time.monotonic())
        return look(self)

    monkeypatch.setattr(type(worker), "own_mark", counted)
    assert SubmissionProxy(backend).chunk() == []
    assert len(looks) == 2


def test_a_loop_at_import_is_an_error_of_its_own(backend_of, tmp_path):
    from chunklab.errors import SubmissionTimeoutError
    from chunklab.pipeline.session import load_warnings
    from chunklab.reading.read import read_submission

    # The worker stops the loop and says so; in a .py file that stops the grading.
    loaded = backend_of("while True:\n    pass\n").load()
    assert [problem.kind for problem in loaded.problems] == ["too_slow"]
    path = tmp_path / "char_chunk.py"
    path.write_text("while True:\n    pass\n")
    with pytest.raises(SubmissionTimeoutError, match="before any test could start"):
        load_warnings(read_submission(path), loaded)


def test_fitted_limits_change_no_score_against_generous_ones(corpus_graded):
    """Every file of the validate corpus, and the slow but correct ones, scores the same
    with fitted limits as with every call given at least three times the floor."""
    paths = list(corpus_graded)
    assert any(path.name.startswith("slow_") for path in paths)
    items = [(n, SubmissionPath(path, str(path))) for n, path in enumerate(paths)]
    kit = find_kit()
    generous = Limits(call_floor_seconds=0.3)
    fitted = {n: corpus_graded[path] for n, path in enumerate(paths)}
    # More time changes nothing for a file none of whose calls ran out of it: only the files
    # that met a time limit, and the slow ones, are graded again with generous limits.
    timed_out = [
        (n, item)
        for n, item in items
        if any(t.outcome == "timeout" for t in fitted[n].tests)
        or any(e.kind == "timeout" for e in fitted[n].errors)
        or paths[n].name.startswith("slow_")
    ]
    assert any(not paths[n].name.startswith("slow_") for n, _ in timed_out)
    wide = dict(grade_many(timed_out, None, kit, generous, 2))
    differ = {
        str(paths[n]): (fitted[n].score, wide[n].score)
        for n in wide
        if fitted[n].score != wide[n].score
    }
    assert differ == {}, json.dumps(differ, indent=1)
    slow = [n for n, path in enumerate(paths) if path.name.startswith("slow_")]
    assert all(fitted[n].score == fitted[n].max_score for n in slow)


LOOPS_ON_ONE_TEXT = "def chunk(text):\n    while text == 'loop':\n        pass\n    return [text]\n"


def first_of_two_sent_ahead(backend: SandboxBackend) -> tuple[SubmissionProxy, tuple]:
    """A check sends a call and a looping one ahead, and makes the first: the proxy and the
    looping call."""
    backend.load()
    proxy = SubmissionProxy(backend)
    proxy.begin_test()
    first, looping = send_ahead(proxy, "chunk", [("a",), ("loop",)])
    assert proxy.chunk(*first) == ["a"]
    return proxy, looping


def test_a_timeout_sent_ahead_counts_only_if_the_check_makes_that_call(backend_of):
    backend = backend_of(LOOPS_ON_ONE_TEXT)
    proxy, _ = first_of_two_sent_ahead(backend)
    # The check stops there, as a failing one does, and makes another call (a try): the
    # loop it never made was run ahead to its limit, yet neither stops this call nor
    # shortens the limits of later tests, as when each call is sent alone.
    assert proxy.chunk("b") == ["b"]
    assert not backend.spinning


def test_a_timeout_sent_ahead_that_the_check_makes_is_one_as_if_sent_alone(backend_of):
    backend = backend_of(LOOPS_ON_ONE_TEXT)
    proxy, looping = first_of_two_sent_ahead(backend)
    with pytest.raises(CallTimedOut, match="did not finish"):
        proxy.chunk(*looping)
    with pytest.raises(CallTimedOut, match="An earlier call in this check"):
        proxy.chunk("b")
    assert backend.spinning


def started_again(backend: SandboxBackend) -> None:
    """The next call goes to a new worker, loaded again, as after a timeout or a crash."""
    assert backend.worker is not None
    backend.worker.kill()


def test_a_worker_started_again_must_hold_what_the_first_load_defined(backend_of):
    backend = backend_of("def chunk(text, size, overlap):\n    return [text]\n")
    backend.load()
    proxy = SubmissionProxy(backend)
    assert proxy.chunk("ab", 2, 0) == ["ab"]
    # Loaded again, the cells define nothing (as a cell stopped at its limit would leave
    # them): the calls would fail on a name the code did define.
    backend.cells = [CodeCell(0, "submission.py", "x = 1\n").to_message()]
    started_again(backend)
    with pytest.raises(WorkerCrashed) as crashed:
        proxy.chunk("ab", 2, 0)
    assert str(crashed.value).endswith(
        "Your code could not be started again after an earlier failure: run again, your "
        "cells did not define chunk as they did the first time (look for code at the top "
        "level that depends on time or files, or that is slow)."
    )


def test_a_worker_started_again_may_take_twice_the_first_loads_limit(backend_of, monkeypatch):
    backend = backend_of("def chunk(text, size, overlap):\n    return [text]\n")
    backend.load()
    proxy = SubmissionProxy(backend)
    limits: list[float] = []
    start = SandboxBackend._start_worker
    monkeypatch.setattr(
        SandboxBackend,
        "_start_worker",
        lambda self, seconds: limits.append(seconds) or start(self, seconds),
    )
    started_again(backend)
    assert proxy.chunk("ab", 2, 0) == ["ab"]
    assert limits == [backend_module.RELOAD_MARGIN * fitted_limits.load_seconds(LIMITS)]
    assert backend_module.RELOAD_MARGIN == 2.0


def test_a_cell_stopped_at_the_first_load_may_get_further_when_started_again(zygote):
    # A notebook's slow demo: stopped the first time, it may finish with the reload's
    # larger limit. The names the first load defined are all there: the calls go on.
    cells = (
        CodeCell(0, "cell 1", "def chunk(text, size, overlap):\n    return [text]\n"),
        CodeCell(
            1,
            "cell 2",
            "import time\nend = time.process_time() + 0.28\n"
            "while time.process_time() < end:\n    pass\n",
        ),
    )
    backend = SandboxBackend(zygote, cells, LIMITS)
    try:
        loaded = backend.load()
        assert [(problem.cell, problem.kind) for problem in loaded.problems] == [(1, "too_slow")]
        proxy = SubmissionProxy(backend)
        started_again(backend)
        assert proxy.chunk("ab", 2, 0) == ["ab"]
    finally:
        backend.close()


def test_every_worker_starts_from_the_same_random_numbers(backend_of):
    source = "import random\nDRAWN = random.random()\ndef drawn():\n    return DRAWN\n"
    first, second = backend_of(source), backend_of(source)
    first.load()
    second.load()
    proxy = SubmissionProxy(first)
    drawn = proxy.drawn()
    started_again(first)
    assert proxy.drawn() == drawn == SubmissionProxy(second).drawn()


def test_a_name_lost_at_a_reload_is_shown_only_as_python_writes_names(backend_of):
    backend = backend_of("globals()['\\nTry: chunk(secret)'] = len\ndef chunk():\n    return []\n")
    backend.load()
    proxy = SubmissionProxy(backend)
    backend.cells = [CodeCell(0, "submission.py", "def chunk():\n    return []\n").to_message()]
    started_again(backend)
    with pytest.raises(WorkerCrashed) as crashed:
        proxy.chunk()
    assert "your cells did not define a name as they did the first time" in str(crashed.value)
    assert "Try:" not in str(crashed.value)


LOOPS_ON_SIZE_THREE = (
    "seen = []\n"
    "def chunk(text, size, overlap):\n"
    "    seen.append(text)\n"
    "    while size == 3:\n"
    "        pass\n"
    "    return [text]\n"
    "def given():\n"
    "    return seen\n"
)


def tries_of(*calls: tuple) -> list[dict[str, Any]]:
    return [{"op": "call", "name": "chunk", "args": list(args), "kwargs": {}} for args in calls]


def test_the_inputs_to_try_are_asked_at_once_each_call_stopped_past_its_own_floor(backend_of):
    backend = backend_of(LOOPS_ON_SIZE_THREE)
    backend.load()
    tests_worker = backend.worker
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("abc", 3, 0), ("b", 1, 0)))
    assert outcomes[0] == {"ok": ["a"]} and outcomes[2] == {"ok": ["b"]}
    assert isinstance(outcomes[1], CallTimedOut)
    # Stopped at its floor; the calls after it are still made. The tries' time is not
    # the submission's own.
    assert backend.spent < fitted_limits.LOAD_SECONDS
    # Made in a child of the worker, ended since: the worker has been given none of them.
    assert backend.worker is tests_worker and tests_worker.alive
    assert SubmissionProxy(backend).given() == []


def test_after_a_few_inputs_to_try_are_stopped_no_more_are_asked(backend_of):
    backend = backend_of("def chunk(text, size, overlap):\n    while True:\n        pass\n")
    backend.load()
    worker = backend.worker
    mark = worker.own_mark()
    outcomes = backend.request_tries(tries_of(*[("a", 1, 0)] * 30))
    assert len(outcomes) == backend_module.MOST_TRY_STOPS
    assert all(isinstance(outcome, CallTimedOut) for outcome in outcomes)
    later = (backend_module.MOST_TRY_STOPS - 1) * floor() * fitted_limits.SPINNING_SHARE
    assert worker.own_seconds_since(mark) < 2 * (floor() + later)


def test_code_that_catches_the_stop_of_a_try_is_stopped_all_the_same(backend_of):
    # Caught and answered: the call is still one that went past its time.
    backend = backend_of(
        "def chunk(text, size, overlap):\n"
        "    try:\n"
        "        while True:\n"
        "            pass\n"
        "    except BaseException:\n"
        "        return ['caught']\n"
    )
    backend.load()
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0)))
    assert len(outcomes) == 2 and all(isinstance(one, CallTimedOut) for one in outcomes)


def test_code_that_goes_on_once_a_try_is_stopped_is_ended_with_the_answers_so_far(backend_of):
    backend = backend_of(
        "def chunk(text, size, overlap):\n"
        "    if text == 'a':\n"
        "        return [text]\n"
        "    while True:\n"
        "        try:\n"
        "            while True:\n"
        "                pass\n"
        "        except BaseException:\n"
        "            pass\n"
    )
    backend.load()
    worker = backend.worker
    started = time.monotonic()
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0), ("a", 2, 0)))
    assert outcomes[0] == {"ok": ["a"]} and len(outcomes) == 2
    assert isinstance(outcomes[1], CallTimedOut)
    assert time.monotonic() - started < 10 * floor() + 2.0
    assert backend.worker is worker and worker.alive


def test_code_that_will_not_be_stopped_in_a_try_loses_its_tries_to_the_graders_limit(backend_of):
    backend = backend_of(
        "import signal\n"
        "def chunk(text, size, overlap):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF, signal.SIGALRM})\n"
        "    while True:\n"
        "        pass\n"
    )
    backend.load()
    worker, spent = backend.worker, backend.spent
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], CallTimedOut)
    # Stopped by the grader: the tests start in a new worker, and none of the time is
    # the submission's own.
    assert not worker.alive
    assert backend.spent == spent


def test_an_input_to_try_that_waits_is_stopped_by_the_clock(backend_of):
    backend = backend_of("import time\ndef chunk(text, size, overlap):\n    time.sleep(60)\n")
    backend.load()
    started = time.monotonic()
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0)))
    assert len(outcomes) == 2 and all(isinstance(one, CallTimedOut) for one in outcomes)
    # The first within its floor's clock, the second within a tenth of it.
    clock = WALL_FACTOR * floor() * (1 + fitted_limits.SPINNING_SHARE)
    assert time.monotonic() - started < clock + 2.0


def test_an_input_to_try_that_ends_its_process_costs_the_others_only(backend_of):
    backend = backend_of("import os\ndef chunk(text, size, overlap):\n    os._exit(3)\n")
    backend.load()
    worker = backend.worker
    assert backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0))) == []
    assert backend.worker is worker and worker.alive


def tried_in_time(backend_of, source: str) -> tuple[list, float]:
    """The outcomes of two inputs to try of `source`, and the seconds they took by the clock."""
    backend = backend_of(source)
    backend.load()
    started = time.monotonic()
    outcomes = backend.request_tries(tries_of(("a", 1, 0), ("b", 1, 0)))
    return outcomes, time.monotonic() - started


def test_a_process_a_try_started_that_holds_its_answers_open_delays_nothing(backend_of):
    # The worker reads the tries' answers until the child that made them has ended.
    outcomes, seconds = tried_in_time(
        backend_of,
        "import os, time\n"
        "def chunk(text, size, overlap):\n"
        "    if text == 'a' and os.fork() == 0:\n"
        "        time.sleep(30)\n"
        "    return [text]\n",
    )
    assert outcomes == [{"ok": ["a"]}, {"ok": ["b"]}]
    assert seconds < 5.0


def test_a_try_that_blocks_its_timers_and_mostly_waits_is_ended_by_the_graders_clock(backend_of):
    outcomes, seconds = tried_in_time(
        backend_of,
        "import signal, time\n"
        "def chunk(text, size, overlap):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF, signal.SIGALRM})\n"
        "    while True:\n"
        "        end = time.process_time() + 0.002\n"
        "        while time.process_time() < end:\n"
        "            pass\n"
        "        time.sleep(0.04)\n",
    )
    assert len(outcomes) == 1 and isinstance(outcomes[0], CallTimedOut)
    own = WALL_FACTOR * floor()  # the least a request of two calls gets
    assert seconds < backend_module.TRIES_WALL_FACTOR * own + 2.0
