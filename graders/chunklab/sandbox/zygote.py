"""Starts the zygote (the clean parent of workers) and asks it for workers."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from chunklab.errors import ChunklabError, UsageError
from chunklab.kit_texts import kit_text_files
from chunklab.sandbox.cgroups import CpuGroups, CpuTimeGroups, MemoryGroups, WorkerGroup
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.work_folder import remove_folder
from chunklab.sandbox.worker import WorkerProcess, send_kill
from chunklab.scoring.report import Isolation

SANDBOX_DIR = Path(__file__).resolve().parent
# The zygote's code comes on its stdin, not its command line: a worker reading
# /proc/*/cmdline finds neither the sandbox's code nor the grader's paths.
BOOTSTRAP = (
    "import json, sys; _start = json.loads(sys.stdin.readline()); "
    "sys.argv[1:] = [_start[k] for k in ('worker', 'config', 'confinement', 'allow_list')]; "
    "exec(compile(_start.pop('zygote'), 'chunklab_zygote', 'exec'))"
)
# Tells a worker it is in its cgroups, before it reads its first request.
WORKER_GO = b"g"
# How long closing waits for a worker still being made ahead: its thread is woken at once.
SPARE_WAIT = 5.0


# What a report's `isolation_gaps` codes mean (the README says the same).
GAPS = {
    "cpu_unpinned": (
        "a submission may move its processes to other CPUs and slow the submissions "
        "graded there (no cpuset cgroup could be made)"
    ),
    "disk_per_file": (
        "--file-size-mb bounds each file a submission writes, not all of them together "
        "(no folder of its own size could be mounted for it)"
    ),
    "memory_per_process": (
        "--memory-mb bounds each process of a submission, not all of them together "
        "(no memory cgroup could be made)"
    ),
    "same_user": (
        "submissions run as the grading user (neither user namespaces nor root): "
        "they can read and write whatever the grader can"
    ),
    "shared_ipc": "submissions share System V IPC (no IPC namespace and no seccomp)",
    "shared_keys": "submissions share kernel keyrings (no seccomp)",
    "unconfined_files": (
        "submissions can read every file their user may read, the kit included where "
        "others may read it (no Landlock)"
    ),
    "unconfined_network": "submissions can use the network (no Landlock 4)",
    "unconfined_signals": ("submissions can signal the grader's other processes (no Landlock 6)"),
}


def write_without_waiting(pipe: IO[bytes], data: bytes) -> None:
    """`data` into `pipe`, which is then closed.

    The pipe is first made large enough to hold it all where Linux allows, so
    the write returns at once instead of waiting for the interpreter at the
    other end to start and read: the zygote starts while this process works on.
    """
    with contextlib.suppress(OSError, AttributeError):  # F_SETPIPE_SZ is Linux's
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, len(data))
    with contextlib.suppress(BrokenPipeError):
        pipe.write(data)
    with contextlib.suppress(BrokenPipeError):
        pipe.close()


class SandboxStartError(ChunklabError):
    kind = "sandbox"


@dataclass(frozen=True)
class ZygoteSettings:
    limits: Limits
    namespaces: bool = sys.platform.startswith("linux")
    # With namespaces, make each worker with one clone(2) where this machine's call is
    # known; False always uses the portable way (unshare and a middle process).
    direct_clone: bool = True
    # Memory and cpuset cgroups per worker where they can be made; False never makes them
    # (each process then has the memory limit on its own, and may leave its CPU).
    cgroups: bool = True
    # Without namespaces, as root: a tmpfs of --file-size-mb per worker where one can be
    # mounted; False never mounts one (each file is then bounded on its own).
    own_disk: bool = True
    # Without namespaces: Landlock where Linux has it; False never uses it (as on a
    # kernel before 5.13).
    landlock: bool = True


class Zygote:
    """A fresh interpreter, with no grader code in it, that forks one worker per submission."""

    def __init__(self, settings: ZygoteSettings) -> None:
        self.settings = settings
        self.scratch = Path(tempfile.mkdtemp(prefix="chunklab-sandbox-"))
        root_dir = self.scratch / "root"
        root_dir.mkdir(mode=0o755)
        # Workers without namespaces may pass through to their own folder, not list the others.
        self.scratch.chmod(0o711)
        config = {
            "limits": asdict(settings.limits),
            "namespaces": settings.namespaces,
            "direct_clone": settings.direct_clone,
            "own_disk": settings.own_disk,
            "use_landlock": settings.landlock,
            "root_dir": str(root_dir),
            "texts": kit_text_files(),
        }
        ours, theirs = socket.socketpair()
        config["control_fd"] = theirs.fileno()
        self.control = ours
        self.process = subprocess.Popen(
            # The interpreter itself, not a virtual environment's link to it.
            [os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", BOOTSTRAP],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(theirs.fileno(),),
            # The same string hashing in every worker: a submission iterating over a
            # set gives the same answers each time it is graded. Nothing of the
            # grader's environment: a worker's /proc shows no path of this machine.
            env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"},
            cwd=self.scratch,
        )
        theirs.close()
        assert self.process.stdin is not None
        payload = {
            "zygote": (SANDBOX_DIR / "zygote_main.py").read_text(),
            "worker": (SANDBOX_DIR / "worker_main.py").read_text(),
            "config": json.dumps(config),
            "confinement": (SANDBOX_DIR / "confinement_main.py").read_text(),
            "allow_list": (SANDBOX_DIR / "allow_list_main.py").read_text(),
        }
        write_without_waiting(self.process.stdin, json.dumps(payload).encode() + b"\n")
        self.reader = self.control.makefile("r")
        self._greeting: dict[str, str] | None = None
        self._start_error: SandboxStartError | None = None
        # The control socket carries one exchange at a time.
        self.control_lock = threading.Lock()
        self.memory = (
            MemoryGroups.create(memory_mb=settings.limits.memory_mb) if settings.cgroups else None
        )
        self.cpus = CpuGroups.create() if settings.cgroups else None
        # A group counting the CPU time of all the worker's processes, unless one of the
        # above counts it already (a second group in the same tree would take the worker
        # out of the first). Without one, that time is summed from /proc (cpu_time.py).
        counted = any(kind is not None and kind.counts_cpu() for kind in (self.memory, self.cpus))
        self.cpu_time = CpuTimeGroups.create() if settings.cgroups and not counted else None
        # The next worker is made while the current one is graded: moving a process
        # into its cgroups waits on the kernel for milliseconds, which a class of
        # submissions would otherwise wait once per submission.
        self.spawned = 0
        self.spare: Future[WorkerProcess] | None = None

    def greeting(self) -> dict[str, str]:
        """The zygote's first message, read when first needed so its start overlaps other work."""
        # The first worker may be made ahead, on a thread (`spawn_ahead`): one reads it.
        with self.control_lock:
            if self._greeting is None and self._start_error is None:
                hello = self.reader.readline()
                if hello:
                    self._greeting = json.loads(hello)
                else:
                    stderr = self.process.stderr.read() if self.process.stderr else b""
                    self._start_error = SandboxStartError(
                        f"the sandbox could not start: {stderr.decode(errors='replace')[-500:]}"
                    )
        if self._greeting is None:
            assert self._start_error is not None
            raise self._start_error
        return self._greeting

    @property
    def isolation(self) -> Isolation:
        """`namespaces` or `process`: how much of the machine a worker is kept from."""
        return "namespaces" if self.greeting()["isolation"] == "namespaces" else "process"

    @property
    def gaps(self) -> tuple[str, ...]:
        """What this sandbox does not keep apart here, as README's codes (empty: nothing)."""
        memory = () if self.memory is not None else ("memory_per_process",)
        cpus = () if self.cpus is not None else ("cpu_unpinned",)
        return (*self.greeting().get("gaps", ()), *memory, *cpus)

    @property
    def problem(self) -> str:
        """Why namespaces could not be used, where they could not."""
        return self.greeting()["problem"]

    def spawn(self) -> WorkerProcess:
        """A fresh worker that has run nothing yet; the one after it is made meanwhile.

        The first worker has no spare made for it: grading one submission makes one worker.
        """
        self.greeting()
        spare, self.spare = self.spare, None
        worker = self._claimed(spare) if spare is not None else None
        if worker is None:
            worker = self._new_worker()
        self.spawned += 1
        if self.spawned > 1:
            self.spare = self._make_spare()
        # In its groups now: the worker may root its cgroup namespace there (zygote_main).
        # Only now does it take the workers' user id, so a spare counts toward no
        # worker's process limit.
        worker.start_output()
        with contextlib.suppress(OSError):
            os.write(worker.requests, WORKER_GO)
        return worker

    def spawn_ahead(self) -> None:
        """Have the first worker made now, while this process works on (imports pytest, say).

        Only where this process forks no grading process meanwhile (see `_make_spare`).
        """
        if self.spawned == 0 and self.spare is None:
            self.spare = self._make_spare()

    def _make_spare(self) -> Future[WorkerProcess]:
        """The next worker, made on a thread that ends as soon as it is made.

        No thread outlives its spare: a process that forks grading processes
        forks only while it runs no other thread (see `batch.start_method`).
        """
        spare: Future[WorkerProcess] = Future()

        def make() -> None:
            try:
                spare.set_result(self._new_worker())
            except BaseException as error:  # handed to whoever claims the spare
                spare.set_exception(error)

        threading.Thread(target=make, name="chunklab-spare", daemon=True).start()
        return spare

    def _claimed(self, spare: Future[WorkerProcess]) -> WorkerProcess | None:
        """The spare worker, if it was made and is still waiting for its first request."""
        try:
            worker = spare.result()
        except SandboxStartError:
            return None  # made again now, and its error, if any, is raised then
        if worker.has_ended():
            worker.kill()
            return None
        return worker

    def _new_worker(self) -> WorkerProcess:
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        output_read, output_write = os.pipe()
        # Without namespaces a worker runs in a fresh folder of its own; with them it
        # gets an empty /work from the zygote instead.
        work_dir = ""
        if self.isolation == "process":
            # Private to the worker: as root, the zygote hands it to the worker's own id.
            work_dir = tempfile.mkdtemp(prefix="work-", dir=self.scratch)
        theirs = [requests_read, answers_write, output_write]
        try:
            with self.control_lock:
                socket.send_fds(self.control, [json.dumps({"work_dir": work_dir}).encode()], theirs)
                answer = self.reader.readline()
        finally:
            for fd in theirs:
                os.close(fd)
        pid = int(answer or "-1")
        if pid <= 0:
            for fd in (requests_write, answers_read, output_read):
                os.close(fd)
            raise SandboxStartError(f"the sandbox could not start a worker (error {-pid})")
        groups: list[WorkerGroup] = []
        # The worker runs none of the submission's code before its first request,
        # so every process the submission starts is counted in its groups.
        try:
            for kind in (self.memory, self.cpus, self.cpu_time):
                if kind is not None:
                    groups.append(kind.adopt(pid))
        except OSError as error:
            send_kill(pid, None)
            for group in groups:
                group.end()
            for fd in (requests_write, answers_read, output_read):
                os.close(fd)
            raise SandboxStartError(f"the sandbox could not bound a worker: {error}") from None
        return WorkerProcess(
            pid=pid,
            groups=tuple(groups),
            on_end=self._end_user_of if self.greeting().get("own_ids") else None,
            requests=requests_write,
            answers=answers_read,
            output=output_read,
            output_limit=self.settings.limits.output_kb * 1024,
            process_group=self.isolation == "process",
            work_dir=Path(work_dir) if work_dir else None,
        )

    def _end_user_of(self, pid: int) -> None:
        """End what a worker left running under its own id (see zygote_main.end_user_of)."""
        with contextlib.suppress(OSError), self.control_lock:
            self.control.sendall(json.dumps({"end_user_of": pid}).encode())
            self.reader.readline()

    def close(self) -> None:
        spare, self.spare = self.spare, None
        if spare is not None and not spare.done():
            # Perhaps waiting for a zygote that has not started yet: it is not needed now.
            # Its thread may be reading the zygote's answer: the socket's end wakes it.
            self.process.kill()
            with contextlib.suppress(OSError):
                self.control.shutdown(socket.SHUT_RDWR)
        if spare is not None:
            # A spare still being made when the zygote was ended fails to read its answer.
            with contextlib.suppress(SandboxStartError, OSError, TimeoutError):
                spare.result(timeout=SPARE_WAIT).kill()
        try:
            self.control.close()
            self.reader.close()
            self.process.kill()
        finally:
            # Meanwhile the kernel takes the zygote's namespaces down, which its end waits for.
            for kind in (self.memory, self.cpus, self.cpu_time):
                if kind is not None:
                    kind.close()
            remove_folder(self.scratch)
        self.process.wait(timeout=5)
        if self.process.stderr is not None:
            self.process.stderr.close()

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def require_isolation(limits: Limits) -> None:
    """For `--require-isolation`: refuse to grade where submissions would run as the grader."""
    with Zygote(ZygoteSettings(limits)) as zygote:
        gaps = zygote.gaps
    if "same_user" in gaps:
        raise UsageError(
            "--require-isolation: this machine allows neither user namespaces nor running "
            "as root, so each submission would run as the grading user and could read and "
            "write whatever it can (the kit, the solutions, the other submissions, the "
            "results). Grade as root, or where user namespaces are allowed, or without "
            "--require-isolation."
        )
