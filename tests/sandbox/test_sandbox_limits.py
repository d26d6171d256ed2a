"""Limits bound what they say: memory for a submission as a whole, answers the grader holds.

Hostile source runs through the real sandbox. Memory requests stay small
(a few hundred MB at most), so a broken bound cannot harm the machine.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chunklab.contract import CallTimedOut, WorkerCrashed
from chunklab.reading.source import CodeCell
from chunklab.sandbox import answer_budget
from chunklab.sandbox.answer_budget import (
    COLLECT_AFTER_BYTES,
    MAX_DEPTH,
    AnswerBudget,
    AnswerRefused,
    decode_answer,
    decoded_estimate,
)
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.call_watch import out_of_own_time
from chunklab.sandbox.cgroups import (
    MB,
    CpuTimeGroups,
    MemoryGroups,
    WorkerGroup,
    WorkerGroups,
    candidate_folders,
    remove_left_behind,
)
from chunklab.sandbox.cpu_time import GroupCounter
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy
from tests.sandbox.sandbox_workers import Workers

# Fixed call limits (floor as large as the ceiling): these calls have no reference to fit to.
LIMITS = Limits(call_seconds=5.0, call_floor_seconds=5.0, submission_seconds=30.0, memory_mb=150)


@pytest.fixture(scope="module", params=[True, False], ids=["namespaces", "process"])
def zygote(request: pytest.FixtureRequest) -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS, namespaces=request.param)) as started:
        yield started


@pytest.fixture
def sandboxed(zygote: Zygote) -> Iterator[Callable[[str], SubmissionProxy]]:
    workers = Workers(zygote, LIMITS)
    yield workers.proxy
    workers.close()


# Children that each fill 100 MB and stay; the call says how many are alive at the end.
CHILDREN = """
import os, time

def fill(children, megabytes):
    started = []
    for _ in range(children):
        ready, done = os.pipe()
        pid = os.fork()
        if pid == 0:
            block = b"x" * (megabytes * 1024 * 1024)
            os.write(done, b"1")
            time.sleep(30)
            os._exit(0)
        os.close(done)
        os.read(ready, 1)  # filled, or ended by the kernel
        started.append(pid)
    time.sleep(0.3)
    alive = [pid for pid in started if os.waitpid(pid, os.WNOHANG) == (0, 0)]
    return len(alive)
"""


def test_memory_bounds_all_the_processes_of_a_submission_together(zygote, sandboxed):
    proxy = sandboxed(CHILDREN)
    alive = proxy.fill(3, 100)
    if "memory_per_process" in zygote.gaps:
        # No memory cgroup can be made here: each process has the limit on its own.
        assert zygote.memory is None
        assert alive == 3
        return
    # Three processes of 100 MB each do not fit in 150 MB together: one is left.
    assert alive == 1
    # The worker itself was not the one ended, and the group is gone with it.
    assert proxy.fill(0, 0) == 0


def test_without_a_memory_group_the_report_says_the_bound_is_per_process():
    settings = ZygoteSettings(LIMITS, namespaces=False, cgroups=False)
    with Zygote(settings) as zygote:
        assert zygote.memory is None
        assert "memory_per_process" in zygote.gaps


def cgroup_v2_tree(
    tmp_path: Path, delegated: str, kind: type[WorkerGroups] = MemoryGroups
) -> WorkerGroups | None:
    """Groups (memory ones unless told) made in a cgroup v2 tree of plain folders at tmp_path."""
    own = tmp_path / "grader"
    own.mkdir()
    (own / "cgroup.subtree_control").write_text(delegated)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"41 31 0:38 / {tmp_path} rw,relatime - cgroup2 cgroup2 rw\n")
    proc_cgroup = tmp_path / "cgroup"
    proc_cgroup.write_text("0::/grader\n")
    settings = {"memory_mb": 64} if kind is MemoryGroups else {}
    return kind.create(mountinfo, proc_cgroup, **settings)


def test_memory_groups_on_a_delegated_cgroup_v2_tree(tmp_path):
    groups = cgroup_v2_tree(tmp_path, "cpu memory\n")
    assert groups is not None and groups.version == 2
    assert groups.folder.parent == tmp_path / "grader"
    assert (groups.folder / "cgroup.subtree_control").read_text() == "+memory"
    # A plain folder keeps the files a real cgroup would take: the limit was written.
    assert (groups.folder / "worker-1" / "memory.max").read_text() == str(64 * MB)


def test_no_memory_groups_where_the_controller_is_not_delegated(tmp_path):
    assert cgroup_v2_tree(tmp_path, "cpu\n") is None


def test_groups_counting_cpu_time_need_no_delegated_controller_on_cgroup_v2(tmp_path):
    # Every cgroup v2 group counts its CPU time in cpu.stat, whatever is delegated.
    groups = cgroup_v2_tree(tmp_path, "\n", CpuTimeGroups)
    assert groups is not None and groups.version == 2
    assert not (groups.folder / "cgroup.subtree_control").exists()
    worker = groups.adopt(None)
    (worker.folder / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert worker.cpu_count() == worker.folder / "cpu.stat"
    assert GroupCounter(worker.folder / "cpu.stat").seconds() == 2.5


def test_a_cgroup_v1_group_counts_cpu_time_only_in_a_cpuacct_tree(tmp_path):
    memory, cpuacct = WorkerGroup(1, tmp_path / "memory"), WorkerGroup(1, tmp_path / "cpuacct")
    for group in (memory, cpuacct):
        group.folder.mkdir()
    (cpuacct.folder / "cpuacct.usage").write_text("1500000000\n")
    assert memory.cpu_count() is None
    assert GroupCounter(cpuacct.folder / "cpuacct.usage").seconds() == 1.5


def test_cgroup_folders_follow_the_mount_root():
    mountinfo = (
        "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "36 31 0:33 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
    )
    proc_cgroup = "4:memory:/docker/abc/inner\n8:pids:/docker/abc\n0::/\n"
    assert candidate_folders(mountinfo, proc_cgroup) == [(1, Path("/sys/fs/cgroup/memory/inner"))]


# The submission writes its own answer line, as a patched worker would.
FORGED = """
import os

def forge(kind):
    body = {
        "deep": b"[" * 100000 + b"]" * 100000,
        "wide": b"[" + b"{}," * 3000000 + b"{}]",
    }[kind]
    os.write(4, b'{"ok": ' + body + b"}\\n")
    os._exit(0)

def text(megabytes):
    return "y" * (megabytes * 1024 * 1024)
"""


def test_a_deeply_nested_answer_fails_its_call_without_being_decoded(sandboxed):
    proxy = sandboxed(FORGED)
    with pytest.raises(WorkerCrashed, match=f"nested more than {MAX_DEPTH} levels deep"):
        proxy.forge("deep")
    # The next call runs in a fresh worker.
    assert proxy.text(0) == ""


def test_an_answer_that_would_decode_many_times_its_size_is_refused(sandboxed):
    proxy = sandboxed(FORGED)
    tracemalloc.start()
    try:
        with pytest.raises(WorkerCrashed, match="more than 128 MB of data"):
            proxy.forge("wide")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 9 MB of JSON would be some 220 MB of dicts; the grader held little more than the text.
    assert peak < 40 * MB


def test_a_large_plain_answer_is_read_once(sandboxed):
    proxy = sandboxed(FORGED)
    assert proxy.text(30) == "y" * (30 * MB)


def test_answers_sent_ahead_share_one_budget(sandboxed, monkeypatch):
    monkeypatch.setattr(answer_budget, "MAX_HELD_BYTES", 8 * MB)
    proxy = sandboxed(FORGED)
    with proxy.ahead() as later:
        for _ in range(4):
            later.text(3)
    assert proxy.text(3) == "y" * (3 * MB)
    assert proxy.text(3) == "y" * (3 * MB)
    with pytest.raises(WorkerCrashed, match="more than 8 MB of data"):
        proxy.text(3)


def test_the_answers_of_one_test_share_one_budget_whatever_the_requests(sandboxed, monkeypatch):
    # A test may keep every answer it got (to compare them, or in its failure's frames):
    # one request at a time must not make room for more.
    monkeypatch.setattr(answer_budget, "MAX_HELD_BYTES", 8 * MB)
    proxy = sandboxed(FORGED)
    proxy.begin_test()
    kept = [proxy.text(3), proxy.text(3)]
    with pytest.raises(WorkerCrashed, match="more than 8 MB of data in one check"):
        kept.append(proxy.text(3))
    proxy.begin_test()
    assert proxy.text(3) == "y" * (3 * MB)


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        (b'{"ok": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}", True),
        (b'{"ok": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}", False),
        (b'{"ok": ["' + b"[" * 70_000 + b'"]}', False),  # brackets inside a string
        (b'{"ok": ["a\\"[[", "]]"]}', False),  # ... after an escaped quote
        (b'{"ok": ["' + b"[" * 70_000 + b'", ' + b"[" * 200 + b"]" * 200 + b"]}", True),
        (b'{"ok": [' + b"[]," * 40_000 + b"[]]}", False),  # wide, not deep
    ],
)
def test_nesting_is_measured_outside_strings(line, refused):
    if refused:
        with pytest.raises(AnswerRefused, match="nested more than"):
            decode_answer(line)
    else:
        assert decode_answer(line) == json.loads(line)


@pytest.mark.parametrize("line", [b'{"ok": [[1]}', b'{"ok": [1,}', b"[[["])
def test_a_short_line_that_is_not_json_is_refused_as_a_long_one_is(line):
    # Brackets that do not match read as nesting too deep, whatever the line's length.
    with pytest.raises(AnswerRefused, match="nested more than"):
        decode_answer(line)


def test_a_short_line_with_brackets_in_a_string_that_is_not_json_is_not_decoded():
    with pytest.raises(ValueError):
        decode_answer(b'{"ok": "["]}')


@pytest.mark.parametrize(
    "line",
    [
        b'{"handle": 7}',
        b'{"ok": ["a", "b"]}',
        b'{"ok": "\\u00e9\\ud83d"}',  # escapes, a lone surrogate among them
        b'{"ok": 1}  ',  # what follows the object is read by `json.loads` itself
        b' {"ok": 1}',
        '{"ok": "\u00e9"}'.encode(),  # not ASCII
        '{"ok": 1}'.encode("utf-16-le"),  # bytes `json.loads` reads as UTF-16
        '{"ok": 1}'.encode("utf-8-sig"),
    ],
)
def test_an_answer_is_decoded_as_json_loads_reads_it(line):
    assert decode_answer(line) == json.loads(line)


@pytest.mark.parametrize("line", [b'{"ok": 1}{"ok": 2}', b'{"ok": 1} x', b'{"ok": \x00}'])
def test_an_answer_with_more_than_one_object_or_a_stray_byte_is_not_decoded(line):
    with pytest.raises(ValueError):
        decode_answer(line)


def test_a_short_answer_the_worker_writes_is_decoded_without_json_loads(monkeypatch):
    # Finding the encoding of bytes and the whitespace around the object is most of what
    # `json.loads` costs for an answer that short, the answer to most calls.
    def decoding(*args, **kwargs):
        raise AssertionError("decoded by json.loads")

    monkeypatch.setattr(answer_budget.json, "loads", decoding)
    answer = decode_answer(b'{"ok": ["a", "b"], "tagged": true}')
    assert answer == {"ok": ["a", "b"], "tagged": True}


def test_a_refused_line_is_never_decoded(monkeypatch):
    def decoding(*args, **kwargs):
        raise AssertionError("decoded")

    monkeypatch.setattr(answer_budget.json, "loads", decoding)
    with pytest.raises(AnswerRefused):
        decode_answer(b'{"ok": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")


def test_the_estimate_counts_every_value():
    line = b'{"ok": [' + b"{}," * 100_000 + b"{}]}"
    assert decoded_estimate(line) >= 100_000 * answer_budget.BYTES_PER_VALUE


def test_going_over_the_memory_of_the_submission_says_so():
    # Two children hold 40 MB each; then the worker itself takes 80 MB, the largest
    # share, so it is the process the kernel ends.
    source = (
        "import os, time\n"
        "def hog():\n"
        "    ready = []\n"
        "    for _ in range(2):\n"
        "        read, write = os.pipe()\n"
        "        if os.fork() == 0:\n"
        "            block = b'x' * (40 * 1024 * 1024)\n"
        "            os.write(write, b'1')\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "        ready.append(os.read(read, 1))\n"
        "    block = b'y' * (80 * 1024 * 1024)\n"
        "    return 'survived'\n"
    )
    with Zygote(ZygoteSettings(LIMITS)) as zygote:
        backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", source),), LIMITS)
        backend.load()
        try:
            if zygote.memory is None:
                assert "memory_per_process" in zygote.gaps
                assert SubmissionProxy(backend).hog() == "survived"
                return
            # The kernel ends the worker, or the watch sees its memory heading past the limit
            # first (the 80 MB fill may be looked at midway): either way the limit held the
            # worker and its children together, and the feedback says memory ran out.
            with pytest.raises(
                (WorkerCrashed, CallTimedOut),
                match="all the processes it started together|would have run out of its 150 MB",
            ):
                SubmissionProxy(backend).hog()
        finally:
            backend.close()


PINNED = """
import os

def escape():
    try:
        os.sched_setaffinity(0, range(os.cpu_count()))
    except OSError:
        pass
    mine = sorted(os.sched_getaffinity(0))
    if os.fork() == 0:
        try:
            os.sched_setaffinity(0, range(os.cpu_count()))
        except OSError:
            pass
        os._exit(min(os.sched_getaffinity(0)) + 10 * len(os.sched_getaffinity(0)))
    _, status = os.wait()
    return [mine, os.waitstatus_to_exitcode(status)]
"""


def test_a_submission_cannot_leave_the_cpus_of_its_grading_process():
    """As a grading process of `--jobs N` is pinned to one CPU, so are its workers."""
    pinned_to = max(os.sched_getaffinity(0))
    previous = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {pinned_to})
    try:
        with Zygote(ZygoteSettings(LIMITS)) as zygote:
            workers = Workers(zygote, LIMITS)
            try:
                mine, child = workers.proxy(PINNED).escape()
            finally:
                workers.close()
    finally:
        os.sched_setaffinity(0, previous)
    if "cpu_unpinned" in zygote.gaps:
        # No cpuset cgroup here: the README states this as a known limit.
        assert zygote.cpus is None
        return
    # Asking for every CPU still leaves the worker and its children on that one.
    assert mine == [pinned_to]
    assert child == pinned_to + 10


def test_folders_of_graders_that_ended_are_removed_and_others_kept(tmp_path):
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = tmp_path / f"chunklab-{ended.stdout.strip()}-1"
    running = tmp_path / f"chunklab-{os.getpid()}-2"
    other = tmp_path / "someone-else"
    for folder in (gone / "worker-1", gone / "worker-2", running / "worker-1", other):
        folder.mkdir(parents=True)
    remove_left_behind(tmp_path, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([running.name, other.name])
    assert (running / "worker-1").is_dir()


# Work that takes a second of CPU, done elsewhere while the main thread gives its CPU
# away (`sched_yield`) until the work is done. Everything runs on one CPU, so the main
# thread waits for it all along: by the clock less its waits, the call costs nothing.
HANDED_OVER = """
import hashlib, os, threading, time

os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
BLOCK = b"x" * 65536  # hashed without holding the interpreter's lock

def work():
    end = time.thread_time() + 1.0
    while time.thread_time() < end:
        hashlib.sha256(BLOCK).digest()

go, finished = threading.Event(), threading.Event()

def helper():
    while True:
        go.wait()
        go.clear()
        work()
        finished.set()

threading.Thread(target=helper, daemon=True).start()

requests_read, requests_write = os.pipe()
answers_read, answers_write = os.pipe()
if os.fork() == 0:
    while os.read(requests_read, 1):
        work()
        os.write(answers_write, b"1")
    os._exit(0)
os.set_blocking(answers_read, False)

def in_a_thread():
    finished.clear()
    go.set()
    while not finished.is_set():
        os.sched_yield()
    return "done"

def in_a_process():
    os.write(requests_write, b"1")
    while True:
        try:
            if os.read(answers_read, 1):
                return "done"
        except BlockingIOError:
            os.sched_yield()

def in_a_process_that_ends():
    child = os.fork()
    if child == 0:
        work()
        os._exit(0)
    while os.waitpid(child, os.WNOHANG) == (0, 0):
        os.sched_yield()
    return "done"
"""
# A tenth of a second of own time for each call; the clock's ceiling is far beyond the work.
SHORT = Limits(call_seconds=5.0, call_floor_seconds=0.1, submission_seconds=30.0, memory_mb=150)


@pytest.fixture(
    scope="module",
    params=[(True, True), (False, False)],
    ids=["namespaces-cgroups", "process-proc-sums"],
)
def short_workers(request: pytest.FixtureRequest) -> Iterator[Workers]:
    """Workers whose CPU is counted by their cgroup where one can be made, and by /proc sums."""
    namespaces, cgroups = request.param
    with Zygote(ZygoteSettings(SHORT, namespaces=namespaces, cgroups=cgroups)) as zygote:
        workers = Workers(zygote, SHORT)
        yield workers
        workers.close()


@pytest.mark.parametrize("handed_to", ["in_a_thread", "in_a_process", "in_a_process_that_ends"])
def test_work_handed_to_other_threads_and_processes_counts_as_own_time(short_workers, handed_to):
    proxy = short_workers.next_proxy(HANDED_OVER)
    groups = short_workers.backends[-1].worker.groups
    if not short_workers.zygote.settings.cgroups:
        assert groups == ()  # its CPU is summed from /proc
    elif groups:
        # Where the worker has cgroups, one of them counts its CPU: no /proc sum is needed.
        assert any(group.cpu_count() is not None for group in groups)
    with pytest.raises(CallTimedOut) as stopped:
        getattr(proxy, handed_to)()
    assert str(stopped.value) == f"Input: {handed_to}()\n{out_of_own_time()}"


def cyclic_garbage() -> weakref.ref:
    """A weak reference to an object kept alive only by a cycle, as a failed check's frames are."""

    class Holder:
        pass

    holder = Holder()
    holder.itself = holder
    return weakref.ref(holder)


@pytest.mark.parametrize(("held", "freed"), [(COLLECT_AFTER_BYTES + 1, True), (1024, False)])
def test_what_a_test_held_in_large_answers_is_freed_before_the_next(held, freed):
    budget = AnswerBudget()
    gc.disable()  # only the budget may collect here
    try:
        kept = cyclic_garbage()
        budget.held = held
        budget.new_test()
        assert (kept() is None) is freed
        assert budget.held == 0
    finally:
        gc.enable()
