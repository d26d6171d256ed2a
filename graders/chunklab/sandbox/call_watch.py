"""Watches a worker while the grader waits for its answer: its own time, its memory's growth.

A call's own time is the larger of two counts. One is the wall-clock time the
call took, less the time the worker's main thread waited for a CPU (Linux
counts that wait in `/proc/<pid>/schedstat`): a busy machine does not make a
call slower by this measure, so a tight limit stays fair, and a call that
sleeps or waits still spends its own time. The other is the CPU time used
during the call by every thread and process of the worker (cpu_time.py): a
submission that hands its work to other threads or processes while its main
thread gives its CPU away is charged for that work. Single-threaded code uses
no more CPU than the first count, so it is charged as before. Where the wait
cannot be read, the first count is wall-clock time.

The wait is added to the main thread's count only once the thread runs again,
so while it waits for a CPU the first count runs ahead. A call is therefore
not stopped while its worker process has used no CPU since the look before
and its main thread is waiting to run: the time since its last run is then
left out until the wait is known.

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
from chunklab.sandbox.cpu_time import CpuUse, WorkerCpu, runnable

# The first look at a worker comes this late: most calls have answered by then, so
# watching them costs nothing. Later looks come at this interval.
FIRST_LOOK = 0.01
LOOK_EVERY = 0.01
SOONEST_LOOK = 0.001
# A worker is judged to grow without end only after its resident memory has grown at
# each look for this long and by this much in one call: a correct call may take memory
# fast, for a moment.
GROWTH_WINDOW = 0.1
GROWTH_MB = 64
# CPU counts of a running thread are brought up to date at the scheduler's tick (every
# 10 ms at the slowest): a count read at the first look may lag by that much.
CPU_SLACK = 0.01


@dataclass(frozen=True)
class CallLimit:
    """How long a call may take: its own time, and a wall-clock ceiling that caps it."""

    own_seconds: float
    memory_mb: int


def out_of_own_time() -> str:
    """What a student reads when a call ran out of its own time.

    No figure: a call's own limit follows the reference's time on this machine,
    and the same code must get the same feedback wherever it is graded.
    """
    return (
        "Your code did not finish in time: it ran far longer than this input needs "
        "(look for a loop that never ends, for work that grows with the square of the "
        "text, such as slicing or searching it anew for every chunk, or for slow work "
        "done again at every call whatever the input, such as building a large table)."
    )


class Verdict(Exception):
    """Why a watched call was stopped; the message is for the student."""


@dataclass(frozen=True)
class Reading:
    """What one look saw: when, the main thread's wait for a CPU so far, the CPU used so far."""

    now: float
    waited: float
    cpu: CpuUse


class ProcFiles:
    """The worker's `schedstat`, `statm` and CPU counts, opened once and read again at each look."""

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

    def waiting_to_run(self) -> bool:
        """Whether the worker's main thread is runnable (and so may be waiting for a CPU)."""
        return runnable(self.pid)

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
    ) -> None:
        """`limit` may be given as a function: it is then worked out at the first look only,
        since most calls have answered by then. `from_start`: own time is counted from
        now, not from the first look (for a worker known to spin, watched closely)."""
        self.files = files
        self._limit = limit
        # Own time is counted from the first look (the time before it is not charged).
        self.first_look: Reading | None = None
        # The last look that found the worker process had used CPU since the one before.
        self.last_ran: Reading | None = None
        self.previous: Reading | None = None
        self.growth: list[tuple[float, float]] = []
        self.spent = 0.0  # own time at the last look
        if from_start:
            self.first_look = self.last_ran = self.previous = self.read(time.monotonic())

    @property
    def limit(self) -> CallLimit:
        if not isinstance(self._limit, CallLimit):
            self._limit = self._limit()
        return self._limit

    def next_look(self) -> float:
        """Seconds until the next look: no later than when the call's own time may run out."""
        if self.first_look is None:
            return FIRST_LOOK
        return max(SOONEST_LOOK, min(LOOK_EVERY, self.limit.own_seconds - self.spent))

    def read(self, now: float) -> Reading:
        return Reading(now, self.files.run_delay() or 0.0, self.files.cpu())

    def look(self, now: float, deadline: float) -> None:
        """Raise `Verdict` when the call has spent its own time or grows past hope."""
        reading = self.read(now)
        if self.first_look is None:
            self.first_look = self.last_ran = self.previous = reading
            return self._watch_memory(now, deadline)
        assert self.previous is not None
        if reading.cpu.process is None or reading.cpu.process != self.previous.cpu.process:
            self.last_ran = reading
        self.previous = reading
        self.spent = self.own_time(reading)
        if self.spent >= self.limit.own_seconds and not self._wait_unknown(reading):
            raise Verdict(out_of_own_time())
        self._watch_memory(now, deadline)

    def own_time(self, reading: Reading) -> float:
        """The larger of wall-clock time less the main thread's waits, and the CPU used."""
        assert self.first_look is not None
        return own_seconds(self.first_look, reading)

    def _cpu_time(self, reading: Reading) -> float:
        """CPU used since the first look by every thread and process of the worker."""
        assert self.first_look is not None
        return cpu_seconds(self.first_look, reading)

    def _wait_unknown(self, reading: Reading) -> bool:
        """Whether the main thread is waiting for a CPU and the wait is not yet counted.

        The worker process used no CPU since the last look that found it running,
        and its main thread is runnable: it has been waiting since, and that wait is
        added to its count only when it runs. Its time since is left out until then
        (the CPU the rest of the worker used still counts).
        """
        ran = self.last_ran
        if ran is None or ran is reading or not self.files.waiting_to_run():
            return False
        settled = max(self.own_time(ran), self._cpu_time(reading))
        return settled < self.limit.own_seconds

    def _watch_memory(self, now: float, deadline: float) -> None:
        """Stop a call whose memory grows steadily enough to pass the limit before its deadline.

        Resident memory is what the worker has filled; the address space the limit
        bounds is always at least that, so this never stops a call sooner than the
        limit itself would.
        """
        size = self.files.resident_mb()
        if size is None:
            return
        if self.growth and size <= self.growth[-1][1]:
            self.growth = []  # growth that pauses is not a runaway
        self.growth.append((now, size))
        first_time, first_size = self.growth[0]
        span = now - first_time
        if span < GROWTH_WINDOW or size - first_size < GROWTH_MB:
            return
        rate = (size - first_size) / span
        limit = self.limit.memory_mb
        if size + rate * (deadline - now) > limit:
            raise Verdict(
                f"Your code kept taking more memory ({size:.0f} MB, growing by "
                f"{rate:.0f} MB a second) and would have run out of its {limit} MB before "
                "its time was up: look for a loop that keeps adding to a list, or for a "
                "function that calls itself on a copy of the rest of the text."
            )


def own_seconds(first: Reading, later: Reading) -> float:
    """A worker's own time between two readings: the larger of wall-clock time less the
    main thread's waits for a CPU, and the CPU every thread and process of it used."""
    wall = later.now - first.now - (later.waited - first.waited)
    return max(wall, cpu_seconds(first, later))


def cpu_seconds(first: Reading, later: Reading) -> float:
    before, now = first.cpu.group, later.cpu.group
    return now - before - CPU_SLACK if now is not None and before is not None else 0.0


@cache
def counts_cpu_wait() -> bool:
    """Whether this system tells how long a process waited for a CPU (Linux does)."""
    return os.path.exists("/proc/self/schedstat")
