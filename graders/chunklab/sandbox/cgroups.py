"""Cgroups for each worker: its memory as a whole, and the CPUs it may run on.

A process limit (RLIMIT_AS) bounds each process on its own, so a submission
that starts sixteen processes could use sixteen times the limit. Where the
grader may make cgroups (cgroup v2 with the controller delegated to it, or
cgroup v1's controller, usually as root), each worker is moved into a group
of its own before it runs any of the submission's code; every process it
starts is then counted in that group:

- memory: the kernel ends one of them when all of them together go over
  `--memory-mb`;
- cpuset: they may run only on the CPUs of the grading process that started
  them, so a submission that moves itself to other CPUs
  (`sched_setaffinity`) cannot slow the submissions graded there;
- CPU time: the group counts the CPU every one of them used, those that have
  ended included (cgroup v1's `cpuacct`; every cgroup v2 group counts it in
  `cpu.stat`), so a call's own time counts work handed to other processes.

Ending a group ends every process in it, those that left the worker's
process group included.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024
# How long ending a group waits for its processes to be gone before leaving the
# empty folder for `close` to remove.
END_ATTEMPTS = 200


@dataclass(frozen=True)
class CgroupMount:
    version: int
    mount_point: Path
    root: str  # the part of the hierarchy this mount shows


def cgroup_mounts(mountinfo: str, controller: str = "memory") -> list[CgroupMount]:
    """cgroup v2 mounts and cgroup v1 mounts of `controller`, from mountinfo."""
    found = []
    for line in mountinfo.splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] == "cgroup2":
            found.append(CgroupMount(2, Path(unescape(fields[4])), unescape(fields[3])))
        elif tail[0] == "cgroup" and controller in tail[2].split(","):
            found.append(CgroupMount(1, Path(unescape(fields[4])), unescape(fields[3])))
    return found


def unescape(field: str) -> str:
    """mountinfo writes spaces and a few other characters as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match[1], 8)), field)


def own_cgroups(proc_cgroup: str, controller: str = "memory") -> dict[int, str]:
    """This process's cgroup path in the v2 tree (key 2) and the v1 `controller` tree (key 1)."""
    paths = {}
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":
            paths[2] = path
        elif controller in controllers.split(","):
            paths[1] = path
    return paths


def candidate_folders(
    mountinfo: str, proc_cgroup: str, controller: str = "memory"
) -> list[tuple[int, Path]]:
    """The folders of this process's own cgroups, v2 first, where they are mounted."""
    paths = own_cgroups(proc_cgroup, controller)
    folders = []
    for mount in sorted(cgroup_mounts(mountinfo, controller), key=lambda m: -m.version):
        path = paths.get(mount.version)
        if path is None:
            continue
        root = mount.root.rstrip("/")
        if root and not (path == root or path.startswith(root + "/")):
            continue
        relative = path[len(root) :].lstrip("/")
        folders.append((mount.version, mount.mount_point / relative))
    return folders


class WorkerGroups:
    """The folder holding this grader's groups of one controller; one group per worker."""

    CONTROLLER = ""  # the cgroup v1 controller
    V2_CONTROLLER = ""  # the cgroup v2 controller, which must be delegated to the grader

    def __init__(self, version: int, folder: Path) -> None:
        self.version, self.folder = version, folder
        self.made = 0

    @classmethod
    def create(
        cls,
        mountinfo: Path = Path("/proc/self/mountinfo"),
        proc_cgroup: Path = Path("/proc/self/cgroup"),
        **settings: int,
    ) -> WorkerGroups | None:
        """Groups under this process's own cgroup, or None where none may be made here."""
        try:
            text = mountinfo.read_text(), proc_cgroup.read_text()
        except OSError:
            return None
        for version, parent in candidate_folders(*text, cls.CONTROLLER):
            with contextlib.suppress(OSError):
                return cls._made_in(version, parent, **settings)
        return None

    @classmethod
    def _made_in(cls, version: int, parent: Path, **settings: int) -> WorkerGroups:
        needed = cls.V2_CONTROLLER
        if version == 2 and needed and needed not in read_words(parent / "cgroup.subtree_control"):
            # Only a cgroup that holds no process itself may give its children a
            # controller; the grader does not move itself to make it so.
            raise OSError(f"the {needed} controller is not delegated here")
        remove_left_behind(parent, version)
        folder = parent / f"chunklab-{os.getpid()}-{time.monotonic_ns()}"
        folder.mkdir(mode=0o755)
        groups = cls(version, folder, **settings)
        try:
            if version == 2 and needed:
                (folder / "cgroup.subtree_control").write_text(f"+{needed}")
            groups.prepare(parent)
            # Prove a group can be made and bounded before promising it.
            groups.adopt(None).end()
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            raise
        return groups

    def prepare(self, parent: Path) -> None:
        """What this grader's own folder needs before a group can be made in it."""

    def counts_cpu(self) -> bool:
        """Whether these groups count their CPU time (no group only for that is then needed)."""
        return WorkerGroup(self.version, self.folder).cpu_count() is not None

    def bound(self, folder: Path) -> None:
        """Write a new group's limits."""
        raise NotImplementedError

    def adopt(self, pid: int | None) -> WorkerGroup:
        """A new bounded group holding `pid` (which has not yet run a submission's code)."""
        self.made += 1
        group = WorkerGroup(self.version, self.folder / f"worker-{self.made}")
        group.folder.mkdir(mode=0o755)
        try:
            self.bound(group.folder)
            if pid is not None:
                (group.folder / "cgroup.procs").write_text(str(pid))
        except OSError:
            group.end()
            raise
        return group

    def close(self) -> None:
        """End every group still here, then remove this grader's folder."""
        with contextlib.suppress(OSError):
            for child in self.folder.iterdir():
                if child.is_dir():
                    WorkerGroup(self.version, child).end()
        with contextlib.suppress(OSError):
            self.folder.rmdir()


class MemoryGroups(WorkerGroups):
    CONTROLLER = V2_CONTROLLER = "memory"

    def __init__(self, version: int, folder: Path, memory_mb: int) -> None:
        super().__init__(version, folder)
        self.memory_mb = memory_mb

    def bound(self, folder: Path) -> None:
        limit = str(self.memory_mb * MB)
        if self.version == 2:
            (folder / "memory.max").write_text(limit)
            with contextlib.suppress(OSError):  # without swap there is no such file
                (folder / "memory.swap.max").write_text("0")
        else:
            (folder / "memory.limit_in_bytes").write_text(limit)
            with contextlib.suppress(OSError):
                (folder / "memory.memsw.limit_in_bytes").write_text(limit)


class CpuGroups(WorkerGroups):
    CONTROLLER = V2_CONTROLLER = "cpuset"

    def prepare(self, parent: Path) -> None:
        if self.version == 1:
            # A new cgroup v1 cpuset starts with no CPU and no memory node.
            for name in ("cpuset.cpus", "cpuset.mems"):
                (self.folder / name).write_text((parent / name).read_text())

    def bound(self, folder: Path) -> None:
        # The CPUs the grading process runs on now: all of them, or the one it is pinned to.
        cpus = ",".join(str(cpu) for cpu in sorted(os.sched_getaffinity(0)))
        (folder / "cpuset.cpus").write_text(cpus)
        if self.version == 1:
            (folder / "cpuset.mems").write_text((self.folder / "cpuset.mems").read_text())


class CpuTimeGroups(WorkerGroups):
    """Groups that only count CPU time: cgroup v1's `cpuacct`, or cgroup v2 with no controller.

    Made only where the worker's other groups do not count it already: a process
    is in one group of each tree, so a second group in the same tree would take
    the worker out of the first.
    """

    CONTROLLER = "cpuacct"  # no cgroup v2 controller is needed: `cpu.stat` is in every group

    def bound(self, folder: Path) -> None:
        """Nothing to bound: the group is there to be counted."""


@dataclass(frozen=True)
class WorkerGroup:
    version: int
    folder: Path

    def processes(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.folder / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def cpu_count(self) -> Path | None:
        """The file counting the CPU time of the group's processes, where this tree counts it."""
        path = self.folder / ("cpu.stat" if self.version == 2 else "cpuacct.usage")
        return path if path.exists() else None

    def ran_out(self) -> bool:
        """True when the kernel ended a process of this group for going over its memory."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            lines = (self.folder / name).read_text().splitlines()
        except OSError:
            return False
        counts = dict(line.split() for line in lines if len(line.split()) == 2)
        return int(counts.get("oom_kill", "0")) > 0

    def end(self) -> None:
        """End every process in the group, wherever it moved to in the process tree."""
        for _ in range(END_ATTEMPTS):
            pids = self.processes()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.001)
        with contextlib.suppress(OSError):
            self.folder.rmdir()


def remove_left_behind(parent: Path, version: int) -> None:
    """Remove the folders of graders that ended without removing theirs (killed, say).

    A folder is named after its grader's pid: one whose pid no longer runs is
    ended group by group (any process left in it is killed), then removed.
    """
    with contextlib.suppress(OSError):
        for folder in parent.glob("chunklab-*-*"):
            pid = folder.name.split("-")[1]
            if not pid.isdigit() or pid_runs(int(pid)):
                continue
            with contextlib.suppress(OSError):
                for child in folder.iterdir():
                    if child.is_dir():
                        WorkerGroup(version, child).end()
                folder.rmdir()


def pid_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it runs, as someone else
    return True


def read_words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []
