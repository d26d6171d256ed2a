"""A call's limit fits the call, a worker's own time is the CPU it used (the clock only a
generous ceiling), and a runaway in memory is stopped by its growth."""

from __future__ import annotations

import gc
import re
import time
import types
from typing import cast

import pytest

from chunklab.sandbox import fitted_limits
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.call_watch import (
    CPU_SLACK,
    WAITING_MARGIN,
    WAITING_WALL_FACTOR,
    WALL_FACTOR,
    CallLimit,
    CallWatch,
    Reading,
    Verdict,
    WaitVerdict,
    cpu_seconds,
    out_of_own_time,
)
from chunklab.sandbox.cpu_time import CpuUse
from chunklab.sandbox.fitted_limits import FACTOR, MEASURES, ReferenceTimes, call_seconds
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_kind import Workers

LIMITS = Limits(call_seconds=2.0, call_floor_seconds=0.1)
# A backend's workers, for checks that start none.
NO_WORKERS = cast(Workers, None)


@pytest.fixture
def margin() -> float:
    return fitted_limits.floor_margin()


def test_a_call_gets_the_floor_plus_a_multiple_of_the_reference_time(margin):
    assert call_seconds(LIMITS, None, spinning=False, stated=None) == pytest.approx(0.1 * margin)
    assert call_seconds(LIMITS, 0.001, spinning=False, stated=None) == pytest.approx(
        0.1 * margin + FACTOR * 0.001
    )


def test_call_seconds_is_the_ceiling():
    assert call_seconds(LIMITS, 1.0, spinning=False, stated=None) == 2.0


def test_a_worker_known_to_spin_gets_a_shorter_floor_but_the_same_room_for_the_call(margin):
    spinning = call_seconds(LIMITS, 0.001, spinning=True, stated=None)
    assert spinning == pytest.approx(0.1 * margin * fitted_limits.SPINNING_SHARE + FACTOR * 0.001)


def test_a_stated_limit_replaces_the_fitted_one_within_call_seconds():
    assert call_seconds(LIMITS, 0.5, spinning=True, stated=1.5) == 1.5
    assert call_seconds(LIMITS, None, spinning=False, stated=9.0) == 2.0
    assert call_seconds(LIMITS, 0.001, spinning=False, stated=1.5) == 1.5


def test_a_floor_as_large_as_the_ceiling_gives_every_call_the_ceiling():
    fixed = Limits(call_seconds=1.0, call_floor_seconds=1.0)
    assert call_seconds(fixed, 0.0001, spinning=True, stated=None) == 1.0
    assert fitted_limits.load_seconds(fixed) == 5.0


def counting_reference() -> tuple[types.ModuleType, list[str]]:
    """A stand-in reference solution that notes each call it gets."""
    made: list[str] = []
    module = types.ModuleType("reference")

    def chunk(text, size, overlap):
        made.append(f"chunk {text}")
        if size <= 0:
            raise ValueError("size")
        return [text]

    class Pipeline:
        def __init__(self, size=5):
            made.append(f"new {size}")
            self.size = size

        def chunk_text(self, text):
            made.append(f"chunk_text {text} {self.size}")
            return [text]

    module.chunk = chunk
    module.Pipeline = Pipeline
    return module, made


def call(name, *args, op="call", handle=None):
    message = {"op": op, "name": name, "args": list(args), "kwargs": {}}
    if handle is not None:
        message["handle"] = handle
    return message


def test_the_reference_times_each_call_once_per_submission():
    module, made = counting_reference()
    times = ReferenceTimes(module)
    first, second = times.mirror(), times.mirror()
    assert first.seconds(call("chunk", "abc", 2, 1)) is not None
    assert first.seconds(call("chunk", "abc", 2, 1)) is not None
    # Timed a few times, the least counting; again for the next submission, whose limits
    # no timing made while another submission ran may set.
    assert made == ["chunk abc"] * MEASURES
    assert second.seconds(call("chunk", "abc", 2, 1)) is not None
    assert made == ["chunk abc"] * 2 * MEASURES


def test_a_collection_in_the_grading_process_never_counts_as_the_references_time():
    # What earlier submissions left in the process sets when its collector runs: were a
    # collection counted, it would fix a far looser limit for every later submission.
    inside = [False]

    def chunk(text: str, size: int, overlap: int) -> list[list[str]]:
        inside[0] = True
        try:
            return [[text] for _ in range(200)]
        finally:
            inside[0] = False

    module = types.ModuleType("reference")
    module.chunk = chunk
    slow: list[float] = []

    def slow_collection(phase: str, info: dict) -> None:
        if phase == "start" and inside[0]:
            started = time.thread_time()
            while time.thread_time() - started < 0.05:
                pass
            slow.append(started)

    threshold = gc.get_threshold()
    gc.callbacks.append(slow_collection)
    gc.set_threshold(1)  # a collection due at nearly every allocation
    try:
        chunk("abc", 2, 1)  # alone, the call sets off a collection of its own
        alone = len(slow)
        seconds = ReferenceTimes(module).mirror().seconds(call("chunk", "abc", 2, 1))
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(slow_collection)
    assert alone >= 1
    assert seconds is not None and seconds < 0.05 and len(slow) == alone
    assert gc.isenabled()


def test_methods_are_timed_on_the_reference_object_made_with_the_same_arguments():
    module, made = counting_reference()
    times = ReferenceTimes(module)
    mirror = times.mirror()
    mirror.seconds(call("Pipeline", 7, op="new", handle=1))
    assert mirror.seconds(call("chunk_text", "xy", op="method", handle=1)) is not None
    # The same object made again, and the same call on it: both are known.
    mirror.seconds(call("Pipeline", 7, op="new", handle=2))
    mirror.seconds(call("chunk_text", "xy", op="method", handle=2))
    # The same method on an object made otherwise is a different call.
    mirror.seconds(call("Pipeline", 3, op="new", handle=3))
    mirror.seconds(call("chunk_text", "xy", op="method", handle=3))
    assert made == [
        *["new 7"] * MEASURES,
        *["chunk_text xy 7"] * MEASURES,
        *["new 3"] * MEASURES,
        *["chunk_text xy 3"] * MEASURES,
    ]


def test_a_call_of_a_test_that_states_its_limit_is_not_timed_on_the_reference():
    module, made = counting_reference()
    backend = SandboxBackend(NO_WORKERS, (), LIMITS, ReferenceTimes(module))
    backend.begin_test(1.5)
    assert backend._own_limit(call("chunk", "abc", 2, 1)).own_seconds == 1.5
    assert made == []
    backend.begin_test()
    backend._own_limit(call("chunk", "abc", 2, 1))
    assert made == ["chunk abc"] * MEASURES


def test_calls_the_reference_cannot_answer_have_no_time():
    module, _ = counting_reference()
    mirror = ReferenceTimes(module).mirror()
    assert mirror.seconds(call("chunk", "abc", 0, 0)) is None  # it raises
    assert mirror.seconds(call("missing", 1)) is None
    assert mirror.seconds(call("chunk_text", "x", op="method", handle=9)) is None
    assert ReferenceTimes(None).mirror().seconds(call("chunk", "a", 1, 0)) is None


def test_the_reference_gets_copies_of_the_arguments():
    module = types.ModuleType("reference")
    module.chunk = lambda items: items.append("changed")
    message = call("chunk", ["kept"])
    ReferenceTimes(module).mirror().seconds(message)
    assert message["args"] == [["kept"]]


class ScriptedProcFiles:
    """What /proc says about a worker, look by look.

    `cpu`: CPU seconds used so far by the worker process and by its whole group, at
    each look (unknown where not given); `sizes`: its resident memory.
    """

    def __init__(
        self,
        cpu: list[tuple[float | None, float | None]] | None = None,
        sizes: list[float] | None = None,
        delays: list[float] | None = None,
    ) -> None:
        self.sizes = iter(sizes or [])
        self.cpus = iter(cpu or [])
        self.delays = iter(delays or [])

    def run_delay(self) -> float | None:
        return next(self.delays, None)

    def resident_mb(self) -> float | None:
        return next(self.sizes, None)

    def cpu(self) -> CpuUse:
        return CpuUse(*next(self.cpus, (None, None)))


def test_a_call_that_waits_for_a_cpu_spends_none_of_its_own_time():
    # Looks 0.1 s apart on a busy machine: the worker got 0.01 s of CPU in each.
    cpu = [(0.0, 0.0), (0.01, 0.01), (0.02, 0.02), (0.03, 0.03)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.05, 512), now=1.0)
    for now in (1.0, 1.1, 1.2, 1.3):
        watch.look(now, deadline=99.0)
    assert watch.spent == pytest.approx(0.03 - CPU_SLACK)


def test_a_call_past_its_own_time_is_stopped():
    cpu = [(0.0, 0.0), (0.07, 0.07)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.05, 512), now=1.0)
    watch.look(1.0, 99.0)
    with pytest.raises(
        Verdict, match="did not finish in time: it ran far longer than this input needs"
    ):
        watch.look(1.5, 99.0)


def test_running_out_of_own_time_names_the_causes_a_student_can_look_for():
    # A slow start at every call (a table built anew) runs out of time on the shortest
    # input too, so the feedback names it beside loops and quadratic work.
    cpu = [(0.0, 0.0), (0.07, 0.07)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.05, 512), now=1.0)
    watch.look(1.0, 99.0)
    with pytest.raises(Verdict) as stopped:
        watch.look(1.06, 99.0)
    assert str(stopped.value) == (
        "Your code did not finish in time: it ran far longer than this input needs "
        "(look for a loop that never ends, for work that grows with the square of the "
        "text, such as slicing or searching it anew for every chunk, for slow work "
        "done again at every call whatever the input, such as building a large table, "
        "or for a wait that never ends, such as a sleep)."
    )


def test_own_time_is_wall_time_where_no_cpu_count_can_be_read():
    watch = CallWatch(ScriptedProcFiles(), CallLimit(0.05, 512), now=1.0)
    watch.look(1.0, 99.0)
    with pytest.raises(Verdict, match="it ran far longer"):
        watch.look(1.06, 99.0)


def test_cpu_used_by_other_threads_and_processes_counts():
    # The worker process itself uses almost nothing; what it started uses 0.06 s a look.
    cpu = [(0.0, 0.0), (0.001, 0.06), (0.002, 0.12)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.1, 512), now=1.0)
    watch.look(1.0, 99.0)
    watch.look(1.05, 99.0)
    assert watch.spent == pytest.approx(0.06 - CPU_SLACK)
    with pytest.raises(Verdict, match="did not finish in time"):
        watch.look(1.1, 99.0)


def test_a_call_that_only_waits_is_stopped_at_its_wall_clock_ceiling():
    # A sleep: no CPU used at all. The clock allows WALL_FACTOR times the own limit.
    watch = CallWatch(ScriptedProcFiles([(0.0, 0.0)] * 3), CallLimit(0.1, 512), now=1.0)
    watch.look(1.01, 99.0)
    watch.look(1.0 + 0.99 * WALL_FACTOR * 0.1, 99.0)
    with pytest.raises(WaitVerdict) as stopped:
        watch.look(1.0 + WALL_FACTOR * 0.1, 99.0)
    assert str(stopped.value) == out_of_own_time()  # the same text: no machine decides it


def test_a_call_that_waits_once_its_submission_is_known_to_wait_has_a_shorter_ceiling():
    limit = CallLimit(0.1, 512, known_to_wait=True)
    assert limit.waiting_seconds == WAITING_WALL_FACTOR * 0.1 + WAITING_MARGIN
    assert limit.waiting_seconds < limit.wall_seconds
    watch = CallWatch(ScriptedProcFiles([(0.0, 0.0)] * 3), limit, now=1.0)
    watch.look(1.01, 99.0)
    watch.look(1.0 + 0.99 * limit.waiting_seconds, 99.0)
    with pytest.raises(WaitVerdict):
        watch.look(1.0 + 1.01 * limit.waiting_seconds, 99.0)


def scripted_share(share: float, counted_as: str, looks: list[float]) -> ScriptedProcFiles:
    """A worker that computes `share` of the clock since 1.0, in its own process (threads)
    or only in a child process (counted by the group)."""
    used = [(look - 1.0) * share for look in looks]
    return ScriptedProcFiles(
        [(0.0, 0.0)] + [(u, u) if counted_as == "process" else (0.0, u) for u in used]
    )


@pytest.mark.parametrize("counted_as", ["process", "group"])
@pytest.mark.parametrize("share", [1 / 6, 1 / 20, 1 / 80])
def test_a_call_known_to_wait_that_computes_keeps_the_generous_ceiling(share, counted_as):
    # Threads or child processes that wait for a CPU on a busy machine (their waits are
    # not the main thread's, so the clock keeps them), or that compute between sleeps:
    # past the shorter ceiling, still computing, only the generous ceiling stops them.
    limit = CallLimit(0.1, 512, known_to_wait=True)
    looks = [1.0 + 0.05 * n for n in range(1, 11)]  # within its own time at any share here
    watch = CallWatch(scripted_share(share, counted_as, looks), limit, from_start=True, now=1.0)
    for look in looks:
        watch.look(look, 99.0)
    assert looks[-1] - 1.0 > limit.waiting_seconds


@pytest.mark.parametrize("counted_as", ["process", "group"])
def test_a_call_known_to_wait_that_computes_next_to_nothing_meets_the_shorter_ceiling(
    counted_as,
):
    limit = CallLimit(0.1, 512, known_to_wait=True)
    looks = [1.0 + 0.05 * n for n in range(1, 20)]
    watch = CallWatch(scripted_share(1 / 200, counted_as, looks), limit, from_start=True, now=1.0)
    with pytest.raises(WaitVerdict):
        for look in looks:
            watch.look(look, 99.0)
    assert look - 1.0 == pytest.approx(0.25)  # the first look past 0.25 s, twice 0.1 and 0.05


def test_a_call_that_computes_past_its_own_time_is_no_wait_whatever_its_clock():
    # Its own time and its clock both past their limits: the CPU decides, as it would
    # for any call that computes.
    cpu = [(0.0, 0.0), (0.3, 0.3)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.1, 512, known_to_wait=True), now=1.0)
    watch.look(1.01, 99.0)
    with pytest.raises(Verdict) as stopped:
        watch.look(1.5, 99.0)
    assert type(stopped.value) is Verdict


def test_a_call_that_computes_on_a_busy_machine_never_reaches_the_wall_clock_ceiling():
    # A twentieth of a CPU: the main thread waits for one 95% of the time.
    looks = [0.5 * n for n in range(40)]
    cpu = [(0.025 * n, 0.025 * n) for n in range(40)]
    delays = [0.475 * n for n in range(40)]
    watch = CallWatch(ScriptedProcFiles(cpu, delays=delays), CallLimit(1.0, 512), now=0.0)
    for now in looks:
        watch.look(now, 99.0)
    last = Reading(looks[-1], CpuUse(*cpu[-1]), delays[-1])
    assert watch.waiting_time(last) < 1.0 and looks[-1] > WALL_FACTOR * 1.0


def test_the_graders_work_on_the_limit_is_left_out_of_the_wall_clock_ceiling(monkeypatch):
    # Working out the limit (timing the reference) takes the grader 0.5 s during the call.
    clock = iter([5.0, 5.5])
    monkeypatch.setattr("chunklab.sandbox.call_watch.time.monotonic", lambda: next(clock))
    watch = CallWatch(
        ScriptedProcFiles([(0.0, 0.0)] * 2), lambda: CallLimit(0.1, 512), now=1.0
    )
    watch.look(1.01, 99.0)
    assert watch.grader_seconds == pytest.approx(0.5)
    watch.look(1.0 + WALL_FACTOR * 0.1 + 0.4, 99.0)  # past the ceiling but for that work


def test_a_worker_known_to_spin_is_timed_from_the_start():
    watch = CallWatch(ScriptedProcFiles([(0.0, 0.0)]), CallLimit(0.01, 512), from_start=True)
    assert watch.first_look is not None
    assert watch.next_look() == pytest.approx(0.01)


def grow(sizes: list[float], every: float = 0.02, own_limit: float = 2.0) -> CallWatch:
    """A call that computes all along, looked at every `every` seconds of its own time."""
    cpu = [(number * every, number * every) for number in range(len(sizes))]
    watch = CallWatch(ScriptedProcFiles(cpu, sizes), CallLimit(own_limit, 512), now=0.0)
    for number in range(len(sizes)):
        watch.look(number * every, 99.0)
    return watch


def test_memory_that_keeps_growing_towards_the_limit_is_stopped_before_it():
    # 40 MB per look of 0.02 s: 2 GB a second, from 10 MB; the limit is 512 MB.
    with pytest.raises(Verdict, match="kept taking more memory") as stopped:
        grow([10.0 + 40 * n for n in range(11)])
    assert "512 MB" in str(stopped.value)
    # Both kinds of code that grow this way are named: a loop and a copying recursion.
    assert "a loop that keeps adding to a list" in str(stopped.value)
    assert "calls itself on a copy of the rest of the text" in str(stopped.value)


def test_the_memory_verdict_says_the_same_whatever_the_sizes_measured():
    # Two runs of one runaway rarely measure the same sizes: the feedback must not differ.
    verdicts = []
    for start, step in ((10.0, 40.0), (37.0, 55.0)):
        with pytest.raises(Verdict) as stopped:
            grow([start + step * n for n in range(11)])
        verdicts.append(str(stopped.value))
    assert verdicts[0] == verdicts[1]
    assert not re.search(r"\d+ MB a second|\(\d+ MB", verdicts[0])


def test_growth_is_judged_by_the_calls_own_time_so_a_busy_machine_changes_nothing():
    # The same growth as above, but the call runs only at one look in four: the looks
    # at which it did not run are left out, and the verdict is the same.
    sizes, cpu = [], []
    for n in range(44):
        sizes.append(10.0 + 40 * (n // 4))
        cpu.append((0.02 * (n // 4), 0.02 * (n // 4)))
    watch = CallWatch(ScriptedProcFiles(cpu, sizes), CallLimit(2.0, 512), now=0.0)
    with pytest.raises(Verdict, match="kept taking more memory"):
        for n in range(44):
            watch.look(0.005 * n, 99.0)


def test_memory_that_grows_then_stops_is_not_stopped():
    grow([10.0 + 10 * n for n in range(5)] + [50.0] * 6 + [60.0, 70.0])


def test_a_small_growth_is_not_judged():
    grow([10.0 + 5 * n for n in range(12)])


def test_growth_that_would_not_reach_the_limit_in_time_is_not_stopped():
    grow([100.0 + 2 * n for n in range(60)], own_limit=2.0)


def test_the_times_kept_stay_few_however_many_calls(monkeypatch):
    monkeypatch.setattr(fitted_limits, "MOST_KEPT", 10)
    module, _ = counting_reference()
    mirror = ReferenceTimes(module).mirror()
    for number in range(25):
        mirror.seconds(call("chunk", f"text {number}", 2, 1))
    assert 0 < len(mirror.known) <= 10


def test_a_long_call_is_kept_under_a_short_key():
    module, _ = counting_reference()
    mirror = ReferenceTimes(module).mirror()
    mirror.seconds(call("chunk", "x" * 100_000, 2, 1))
    assert all(len(key) <= fitted_limits.LONG_KEY for key in mirror.known)


def test_the_next_look_comes_when_the_own_time_may_run_out():
    cpu = [(0.0, 0.0), (0.03, 0.03), (0.04, 0.04)]
    watch = CallWatch(ScriptedProcFiles(cpu), CallLimit(0.025, 512), now=1.0)
    assert watch.next_look() == pytest.approx(0.01)  # the first look, to start counting
    watch.look(1.0, 99.0)
    watch.look(1.02, 99.0)
    assert watch.next_look() == pytest.approx(0.005)
    with pytest.raises(Verdict):
        watch.look(1.03, 99.0)


def test_a_limit_given_as_a_function_is_worked_out_only_at_a_look():
    asked = []

    def limit():
        asked.append(1)
        return CallLimit(0.05, 512)

    quick = CallWatch(ScriptedProcFiles(), limit)
    assert quick.next_look() == pytest.approx(0.01) and asked == []  # answered before a look
    slow = CallWatch(ScriptedProcFiles([(0.0, 0.0), (0.07, 0.07)]), limit, now=1.0)
    slow.look(1.0, 99.0)
    with pytest.raises(Verdict):
        slow.look(1.06, 99.0)
    assert asked == [1]


def test_a_calls_cpu_time_is_its_process_clock_or_its_groups_count_whichever_is_more():
    start = Reading(1.0, CpuUse(0.5, 0.5))
    # The group's count lags the running process by a tick; the process clock does not.
    assert cpu_seconds(start, Reading(2.0, CpuUse(0.6, 0.596))) == pytest.approx(0.1)
    # A process the worker started did the work.
    assert cpu_seconds(start, Reading(2.0, CpuUse(0.51, 0.8))) == pytest.approx(0.3)
    assert cpu_seconds(Reading(1.0, CpuUse(None, None)), Reading(2.0, CpuUse(None, 1.0))) is None


def test_an_object_noted_but_not_timed_is_made_when_its_method_is_timed():
    module, made = counting_reference()
    times = ReferenceTimes(module)
    times.mirror().seconds(call("Pipeline", 4, op="new", handle=1))
    other = times.mirror()
    other.note(call("Pipeline", 4, op="new", handle=1))  # noted only: its making is not timed
    assert other.seconds(call("chunk_text", "ab", op="method", handle=1)) is not None
    # Timed once (the least of a few timings), made once more for the other submission.
    assert made == [*["new 4"] * MEASURES, "new 4", *["chunk_text ab 4"] * MEASURES]
