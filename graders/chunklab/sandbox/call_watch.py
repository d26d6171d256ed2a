"""Watches a worker while the grader waits for its answer: its own time, its memory's growth.

A call's own time is the CPU time used during the call by every thread and
process of the worker (cpu_time.py): a busy machine makes a call wait longer
for a CPU, never use more of it, so a tight limit stays fair under any load,
and a submission that hands its work to other threads or processes is charged
for that work. Where no CPU count can be read, own time is wall-clock time.

Wall-clock time is only a ceiling, `WALL_FACTOR` times the own limit (and a
shorter one for a call that computes next to nothing, once the submission is
known to wait), for code that waits (sleeps, blocks on a pipe) and so spends no
CPU. Left out of it: the grader's own work while a call runs (working out the
call's limit), and the time the worker's main thread waited for a CPU (Linux
counts it in `/proc/<pid>/schedstat`), so no load brings computing code to that
ceiling.

Memory: a call whose worker keeps growing fast enough to reach the memory
limit before its time is up is stopped then, not when it reaches the limit.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from chunklab.sandbox.cgroups import WorkerGroup
from chunklab.sandbox.cpu_time import CpuUse, WorkerCpu

# The first look at a worker comes this late: most calls have answered by then, so
# watching them costs nothing. Later looks come at this interval.
FIRST_LOOK = 0.01
LOOK_EVERY = 0.01
SOONEST_LOOK = 0.001
# A worker is judged to grow without end only after its resident memory has grown at
# each look for this much of its own time and by this much in one call: a correct call
# may take memory fast, for a moment.
GROWTH_WINDOW = 0.1
GROWTH_MB = 64
# Own time a call must have spent since the last look for that look to judge its growth.
RAN_SINCE = 0.001
# CPU counts of a running thread are brought up to date at the scheduler's tick (every
# 10 ms at the slowest): a count read at the first look may lag by that much.
CPU_SLACK = 0.01
# A call may take this many times its own limit by the clock: room for any load, since
# code that computes is stopped by its CPU time long before.
WALL_FACTOR = 10.0
# Once a call has been stopped by the clock, its submission is known to wait (a sleep, a
# read that never returns): a later call that has computed for less than a hundredth of
# its time by the clock is stopped once that time passes this many times its own limit,
# plus a margin for the grader's looks. A thread or a child process that computes gets
# far more than a hundredth of a CPU however busy the machine (its waits for one are on
# the clock), so only code that does next to nothing but wait meets this ceiling.
WAITING_WALL_FACTOR = 2.0
WAITING_MARGIN = 0.05
COMPUTING_SHARE = 0.01


@dataclass(frozen=True)
class CallLimit:
    """How long a call may take: its own (CPU) time, and a wall-clock ceiling in proportion;
    a shorter one for a call that waits, once its submission is known to wait."""

    own_seconds: float
    memory_mb: int
    known_to_wait: bool = False

    @property
    def wall_seconds(self) -> float:
        return WALL_FACTOR * self.own_seconds

    @property
    def waiting_seconds(self) -> float:
        return WAITING_WALL_FACTOR * self.own_seconds + WAITING_MARGIN


def out_of_own_time() -> str:
    """What a student reads when a call ran out of its own time, or of its clock.

    No figure: a call's own limit follows the reference's time on this machine,
    and the same code must get the same feedback wherever it is graded. One text
    for both limits: which of them stops code that computes while it waits (on
    memory the machine is short of, say) depends on the machine.
    """
    return (
        "Your code did not finish in time: it ran far longer than this input needs "
        "(look for a loop that never ends, for work that grows with the square of the "
        "text, such as slicing or searching it anew for every chunk, for slow work "
        "done again at every call whatever the input, such as building a large table, "
        "or for a wait that never ends, such as a sleep)."
    )


class Verdict(Exception):
    """Why a watched call was stopped; the message is for the student."""


class MemoryVerdict(Verdict):
    """The call's memory was heading past its limit before its time was up."""


class WaitVerdict(Verdict):
    """The call reached its wall-clock ceiling before its own time: it waited, not computed."""


@dataclass(frozen=True)
class Reading:
    """What one look saw: when, the CPU used so far, and how long the worker's main thread
    has waited for a CPU so far (0 where the system does not say)."""

    now: float
    cpu: CpuUse
    waited: float = 0.0


class ProcFiles:
    """The worker's `statm` and CPU counts, opened once and read again at each look."""

    def __init__(self, pid: int, groups: Sequence[WorkerGroup] = ()) -> None:
        self.pid = pid
        self.groups = groups
        # Opened at the first look: most workers answer every call before one is needed.
        self.fds: dict[str, int | None] = {}
        self.worker_cpu: WorkerCpu | None = None
        self.page_mb = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0

    def _fd(self, name: str) -> int | None:
        if name not in self.fds:
            try:
                self.fds[name] = os.open(f"/proc/{self.pid}/{name}", os.O_RDONLY)
            except OSError:
                self.fds[name] = None
        return self.fds[name]

    def run_delay(self) -> float | None:
        """Seconds the worker's main thread has waited for a CPU so far, if the system says."""
        fields = self._read(self._fd("schedstat"))
        return int(fields[1]) / 1e9 if len(fields) >= 2 else None

    def resident_mb(self) -> float | None:
        """The worker's resident memory (what it has filled, not only reserved)."""
        fields = self._read(self._fd("statm"))
        return int(fields[1]) * self.page_mb if len(fields) >= 2 and self.page_mb else None

    def cpu(self) -> CpuUse:
        """CPU used so far by the worker process, and by it and everything it started."""
        if self.worker_cpu is None:
            # The worker is in one group of each tree; the last that counts CPU holds it.
            counts = (group.cpu_count() for group in reversed(self.groups))
            self.worker_cpu = WorkerCpu(self.pid, next((c for c in counts if c is not None), None))
        return self.worker_cpu.used()

    @staticmethod
    def _read(fd: int | None) -> list[bytes]:
        if fd is None:
            return []
        try:
            return os.pread(fd, 128, 0).split()
        except OSError:
            return []

    def close(self) -> None:
        for fd in self.fds.values():
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fds = {name: None for name in self.fds}
        if self.worker_cpu is not None:
            self.worker_cpu.close()


class CallWatch:
    """One call's own time and memory, looked at while the grader waits for its answer."""

    def __init__(
        self,
        files: ProcFiles,
        limit: CallLimit | Callable[[], CallLimit],
        *,
        from_start: bool = False,
        now: float | None = None,
    ) -> None:
        """`limit` may be given as a function: it is then worked out at the first look only,
        since most calls have answered by then. `from_start`: own time is counted from
        now, not from the first look (for a worker known to spin, watched closely).
        `now`: when the call started, for its wall-clock ceiling (by default, now)."""
        self.files = files
        self._limit = limit
        self.started = time.monotonic() if now is None else now
        # Wall-clock time the grader spent on its own work during the call (its limit).
        self.grader_seconds = 0.0
        # Own time is counted from the first look (the time before it is not charged).
        self.first_look: Reading | None = None
        self.growth: list[tuple[float, float]] = []
        self.spent = 0.0  # own time at the last look
        if from_start:
            self.first_look = self.read(self.started)

    @property
    def limit(self) -> CallLimit:
        if not isinstance(self._limit, CallLimit):
            began = time.monotonic()
            self._limit = self._limit()
            self.grader_seconds += time.monotonic() - began
        return self._limit

    def next_look(self) -> float:
        """Seconds until the next look: no later than when the call's own time may run out."""
        if self.first_look is None:
            return FIRST_LOOK
        return max(SOONEST_LOOK, min(LOOK_EVERY, self.limit.own_seconds - self.spent))

    def read(self, now: float) -> Reading:
        return Reading(now, self.files.cpu(), self.files.run_delay() or 0.0)

    def look(self, now: float, deadline: float) -> None:
        """Raise `Verdict` when the call has spent its own time, waited past its wall-clock
        ceiling, or grows past hope."""
        reading = self.read(now)
        if self.first_look is None:
            self.first_look = reading
        self.spent = self.own_time(reading)
        if self.spent >= self.limit.own_seconds:
            raise Verdict(out_of_own_time())
        clock = self.waiting_time(reading)
        if clock >= self.limit.wall_seconds or self._only_waits(reading, clock):
            raise WaitVerdict(out_of_own_time())
        self._watch_memory(self.spent)

    def _only_waits(self, reading: Reading, clock: float) -> bool:
        """For a submission known to wait: past the shorter ceiling, having computed for
        less than a hundredth of its time by the clock (on all its threads and processes)."""
        if not self.limit.known_to_wait or clock < self.limit.waiting_seconds:
            return False
        assert self.first_look is not None
        computed = cpu_seconds(self.first_look, reading)
        return computed is not None and computed < COMPUTING_SHARE * clock

    def waiting_time(self, reading: Reading) -> float:
        """The call's time by the clock, less the grader's work during it and the time the
        worker's main thread waited for a CPU (a busy machine's share, not the code's)."""
        assert self.first_look is not None
        waited = reading.waited - self.first_look.waited
        return reading.now - self.started - self.grader_seconds - waited

    def own_time(self, reading: Reading) -> float:
        """The CPU every thread and process of the worker used since the first look."""
        assert self.first_look is not None
        return own_seconds(self.first_look, reading)

    def _watch_memory(self, spent: float) -> None:
        """Stop a call whose memory grows steadily enough to pass the limit before its own
        time is up.

        Growth is measured against the call's own time, not the clock, so a busy
        machine (which runs the call less often) changes neither the rate nor the
        verdict; a look at which the call has not run since the last one is left out.
        Resident memory is what the worker has filled; the address space the limit
        bounds is always at least that, so this never stops a call sooner than the
        limit itself would.
        """
        size = self.files.resident_mb()
        if size is None or (self.growth and spent - self.growth[-1][0] < RAN_SINCE):
            return
        if self.growth and size <= self.growth[-1][1]:
            self.growth = []  # growth that pauses is not a runaway
        self.growth.append((spent, size))
        first_spent, first_size = self.growth[0]
        span = spent - first_spent
        if span < GROWTH_WINDOW or size - first_size < GROWTH_MB:
            return
        rate = (size - first_size) / span
        limit = self.limit.memory_mb
        if size + rate * (self.limit.own_seconds - spent) > limit:
            raise MemoryVerdict(
                # No measured size or rate in the words: they differ from run to run,
                # and the feedback must be the same whatever machine graded it.
                f"Your code kept taking more memory and would have run out of its {limit} MB "
                "before its time was up: look for a loop that keeps adding to a list, or for a "
                "function that calls itself on a copy of the rest of the text."
            )


def own_seconds(first: Reading, later: Reading) -> float:
    """A worker's own time between two readings: the CPU every thread and process of it
    used, or wall-clock time where that cannot be read."""
    before, now = first.cpu.group, later.cpu.group
    if now is None or before is None:
        return later.now - first.now
    return now - before - CPU_SLACK


def cpu_seconds(first: Reading, later: Reading) -> float | None:
    """The CPU a worker used between two readings, as exactly as it can be told.

    Its process's clock is exact to the nanosecond, even while it runs; the count of
    everything it started (a cgroup's) may lag a running process by a scheduler tick.
    The larger of the two counts the work of other processes without that lag.
    """
    pairs = ((first.cpu.process, later.cpu.process), (first.cpu.group, later.cpu.group))
    spans = [after - before for before, after in pairs if before is not None and after is not None]
    return max(spans) if spans else None


@cache
def counts_cpu() -> bool:
    """Whether this system tells the CPU time another process used (Linux's /proc does)."""
    return os.path.exists("/proc/self/stat")
