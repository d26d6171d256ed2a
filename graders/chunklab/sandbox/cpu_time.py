"""The CPU time a worker has used: its own process's, and that of everything it started.

A call's own time must count work done on other threads and in other
processes, or a submission could hand its work to them while its main thread
waits its turn for a CPU. Where the worker has a cgroup that counts CPU time
(cgroup v1's `cpuacct`, or any cgroup v2 group's `cpu.stat`), that count covers
every thread and process ever in the group, those that have ended included.
Elsewhere it is summed from /proc: the worker process's CPU clock (all its
threads, ended ones included), what its ended children were charged once
waited for, and every process still running below it. That sum misses a
process that left the worker's tree (its parent ended before it, and it was
handed to a process outside the worker), and the ended children such a
process waited for.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

# /proc/<pid>/stat, after the closing parenthesis of the command's name: where the
# state and the four CPU times are (fields 3 and 14 to 17 of proc(5)).
STATE, UTIME, CSTIME = 0, 11, 14
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# The number of processes a /proc sum visits at most: a fork bomb is the memory limit's.
MOST_PROCESSES = 4096


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds used so far: by the worker process (all its threads), by all it started too."""

    process: float | None
    group: float | None


def process_clock(pid: int) -> float | None:
    """The CPU time of every thread of `pid`, to the nanosecond (Linux's process CPU clock)."""
    clock = ((~pid) << 3) | 2  # CPUCLOCK_SCHED of the process, as clock_getcpuclockid makes it
    try:
        return time.clock_gettime(clock)
    except (OSError, OverflowError, AttributeError):
        return None


def stat_fields(pid: int) -> list[bytes]:
    """The fields of /proc/<pid>/stat after the command's name, which may hold anything."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return []
    return text[text.rfind(b")") + 2 :].split()


def runnable(pid: int) -> bool:
    """Whether the main thread of `pid` is runnable: running, or waiting for a CPU."""
    fields = stat_fields(pid)
    return bool(fields) and fields[STATE] == b"R"


def children(pid: int) -> list[int]:
    """The processes started by any thread of `pid` that are still its children."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for thread in os.listdir(f"/proc/{pid}/task"):
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"/proc/{pid}/task/{thread}/children", "rb") as listed,
            ):
                found.extend(int(child) for child in listed.read().split())
    return found


def tree_seconds(pid: int) -> float | None:
    """CPU seconds used by `pid`, its ended children waited for, and every live descendant."""
    own = stat_fields(pid)
    if len(own) <= CSTIME:
        return None
    clock = process_clock(pid)
    ticks = sum(int(field) for field in own[CSTIME - 1 : CSTIME + 1])  # ended children
    if clock is None:
        ticks += int(own[UTIME]) + int(own[UTIME + 1])
    seen, waiting = {pid}, children(pid)
    while waiting and len(seen) < MOST_PROCESSES:
        child = waiting.pop()
        if child in seen:
            continue
        seen.add(child)
        fields = stat_fields(child)
        if len(fields) > CSTIME:
            ticks += sum(int(field) for field in fields[UTIME : CSTIME + 1])
        waiting.extend(children(child))
    return (clock or 0.0) + ticks / TICK


class GroupCounter:
    """A cgroup's CPU count, read again at each look from a file opened once."""

    def __init__(self, path: Path) -> None:
        self.v2 = path.name == "cpu.stat"
        try:
            self.fd: int | None = os.open(path, os.O_RDONLY)
        except OSError:
            self.fd = None

    def seconds(self) -> float | None:
        if self.fd is None:
            return None
        try:
            text = os.pread(self.fd, 4096, 0)
        except OSError:
            return None
        if not self.v2:
            return int(text) / 1e9 if text.strip().isdigit() else None
        words = text.split()
        for name, value in zip(words[::2], words[1::2], strict=False):
            if name == b"usage_usec" and value.isdigit():
                return int(value) / 1e6
        return None

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


class WorkerCpu:
    """The CPU a worker and all it started have used: from its cgroup, else from /proc."""

    def __init__(self, pid: int, counted_in: Path | None) -> None:
        self.pid = pid
        self.group = GroupCounter(counted_in) if counted_in is not None else None

    def used(self) -> CpuUse:
        process = process_clock(self.pid)
        counted = self.group.seconds() if self.group is not None else None
        return CpuUse(process, counted if counted is not None else tree_seconds(self.pid))

    def close(self) -> None:
        if self.group is not None:
            self.group.close()
