"""A memory cgroup for each worker: `--memory-mb` bounds a submission's processes together.

A process limit (RLIMIT_AS) bounds each process on its own, so a submission
that starts sixteen processes could use sixteen times the limit. Where the
grader may make cgroups (cgroup v2 with the memory controller delegated to
it, or cgroup v1's memory controller, usually as root), each worker is moved
into a group of its own before it runs any of the submission's code; every
process it starts is then counted in that group, and the kernel ends one of
them when all of them together go over the limit. Ending the group ends
every process in it, those that left the worker's process group included.
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


def cgroup_mounts(mountinfo: str) -> list[CgroupMount]:
    """cgroup v2 mounts and cgroup v1 mounts of the memory controller, from mountinfo."""
    found = []
    for line in mountinfo.splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] == "cgroup2":
            found.append(CgroupMount(2, Path(unescape(fields[4])), unescape(fields[3])))
        elif tail[0] == "cgroup" and "memory" in tail[2].split(","):
            found.append(CgroupMount(1, Path(unescape(fields[4])), unescape(fields[3])))
    return found


def unescape(field: str) -> str:
    """mountinfo writes spaces and a few other characters as octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match[1], 8)), field)


def own_cgroups(proc_cgroup: str) -> dict[int, str]:
    """This process's cgroup path in the v2 tree (key 2) and the v1 memory tree (key 1)."""
    paths = {}
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":
            paths[2] = path
        elif "memory" in controllers.split(","):
            paths[1] = path
    return paths


def candidate_folders(mountinfo: str, proc_cgroup: str) -> list[tuple[int, Path]]:
    """The folders of this process's own cgroups, v2 first, where they are mounted."""
    paths = own_cgroups(proc_cgroup)
    folders = []
    for mount in sorted(cgroup_mounts(mountinfo), key=lambda m: -m.version):
        path = paths.get(mount.version)
        if path is None:
            continue
        root = mount.root.rstrip("/")
        if root and not (path == root or path.startswith(root + "/")):
            continue
        relative = path[len(root) :].lstrip("/")
        folders.append((mount.version, mount.mount_point / relative))
    return folders


class MemoryGroups:
    """The folder holding this grader's worker groups; one group made per worker."""

    def __init__(self, version: int, folder: Path, memory_mb: int) -> None:
        self.version, self.folder, self.memory_mb = version, folder, memory_mb
        self.made = 0

    @classmethod
    def create(
        cls,
        memory_mb: int,
        mountinfo: Path = Path("/proc/self/mountinfo"),
        proc_cgroup: Path = Path("/proc/self/cgroup"),
    ) -> MemoryGroups | None:
        """Groups under this process's own cgroup, or None where none may be made here."""
        try:
            candidates = candidate_folders(mountinfo.read_text(), proc_cgroup.read_text())
        except OSError:
            return None
        for version, parent in candidates:
            with contextlib.suppress(OSError):
                return cls._made_in(version, parent, memory_mb)
        return None

    @classmethod
    def _made_in(cls, version: int, parent: Path, memory_mb: int) -> MemoryGroups:
        if version == 2 and "memory" not in read_words(parent / "cgroup.subtree_control"):
            # Only a cgroup that holds no process itself may give its children the memory
            # controller; the grader does not move itself to make it so.
            raise OSError("the memory controller is not delegated here")
        folder = parent / f"chunklab-{os.getpid()}-{time.monotonic_ns()}"
        folder.mkdir(mode=0o755)
        groups = cls(version, folder, memory_mb)
        try:
            if version == 2:
                (folder / "cgroup.subtree_control").write_text("+memory")
            # Prove a group can be made and bounded before promising it.
            groups.adopt(None).end()
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            raise
        return groups

    def adopt(self, pid: int | None) -> MemoryGroup:
        """A new bounded group holding `pid` (which has not yet run a submission's code)."""
        self.made += 1
        group = MemoryGroup(self.version, self.folder / f"worker-{self.made}")
        group.folder.mkdir(mode=0o755)
        try:
            limit = str(self.memory_mb * MB)
            if self.version == 2:
                (group.folder / "memory.max").write_text(limit)
                with contextlib.suppress(OSError):  # without swap there is no such file
                    (group.folder / "memory.swap.max").write_text("0")
            else:
                (group.folder / "memory.limit_in_bytes").write_text(limit)
                with contextlib.suppress(OSError):
                    (group.folder / "memory.memsw.limit_in_bytes").write_text(limit)
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
                    MemoryGroup(self.version, child).end()
        with contextlib.suppress(OSError):
            self.folder.rmdir()


@dataclass(frozen=True)
class MemoryGroup:
    version: int
    folder: Path

    def processes(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.folder / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

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


def read_words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []
