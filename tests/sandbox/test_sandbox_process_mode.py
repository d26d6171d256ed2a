"""Without namespaces (process mode): what a worker can still not reach, and what is said.

`ZygoteSettings(namespaces=False)` forces the mode a container without user
namespaces gets. Run as root (as a container usually is), each worker has a
user id of its own; run as another user, the reports and the table say that
submissions ran as the grading user, and `--require-isolation` refuses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from chunklab.report_out.table import Outline, results_table
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy
from tests.sandbox.sandbox_workers import Workers

LIMITS = Limits(call_seconds=2.0, submission_seconds=20.0)
KIT_ROOT = Path(__file__).resolve().parents[2]
AS_ROOT = os.getuid() == 0


@pytest.fixture(scope="module", params=[True, False], ids=["with-cgroups", "without-cgroups"])
def zygote(request: pytest.FixtureRequest) -> Iterator[Zygote]:
    settings = ZygoteSettings(LIMITS, namespaces=False, cgroups=request.param)
    with Zygote(settings) as started:
        yield started


@pytest.fixture
def sandboxed(zygote: Zygote) -> Iterator[Callable[[str], SandboxBackend]]:
    workers = Workers(zygote, LIMITS)
    yield workers.backend
    workers.close()


PROBE = """
import os

def ids():
    return [os.getuid(), os.getgid(), os.getgroups()]

def own_folder():
    folder = os.stat(".")
    return [folder.st_uid, oct(folder.st_mode & 0o777)]

def connect(port):
    import socket
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return "connected"
    except OSError as error:
        return type(error).__name__

def signal(pid):
    try:
        os.kill(pid, 0)
        return "signalled"
    except OSError as error:
        return type(error).__name__

def reach(path, write):
    try:
        if write:
            with open(path, "w") as handle:
                handle.write("forged")
        else:
            with open(path) as handle:
                handle.read(1)
        return "reached"
    except OSError as error:
        return type(error).__name__
"""


def test_each_worker_runs_as_a_user_of_its_own(zygote, sandboxed):
    first = SubmissionProxy(sandboxed(PROBE)).ids()
    second = SubmissionProxy(sandboxed(PROBE)).ids()
    assert zygote.isolation == "process"
    if not AS_ROOT:
        assert "same_user" in zygote.gaps
        assert first[0] == second[0] == os.getuid()
        return
    assert "same_user" not in zygote.gaps
    for uid, gid, groups in (first, second):
        assert uid == gid and uid not in (0, os.getuid())
        assert groups == []
    # Two workers alive at once do not share an id: neither can signal the other.
    assert first[0] != second[0]
    # Each works in a folder that only it may enter.
    assert SubmissionProxy(sandboxed(PROBE)).own_folder()[1] == "0o700"


def test_the_grading_users_files_and_folders_are_out_of_reach(zygote, sandboxed, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "gradebook.csv").write_text("student,score\n")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "cases.json").write_text("[]")
    # The folder above is open to everyone, as /work or a home folder may be.
    tmp_path.chmod(0o755)
    proxy = SubmissionProxy(sandboxed(PROBE))
    if not AS_ROOT:
        assert "same_user" in zygote.gaps
        return
    # With a tmpfs of its own on /tmp, what the grader keeps there is not even seen.
    own_tmp = "disk_per_file" not in zygote.gaps and tmp_path.is_relative_to("/tmp")
    refused = "FileNotFoundError" if own_tmp else "PermissionError"
    assert proxy.reach(str(out / "gradebook.csv"), True) == refused
    assert proxy.reach(str(out / "forged.json"), True) == refused
    assert proxy.reach(str(cache / "cases.json"), False) == refused
    assert (out / "gradebook.csv").read_text() == "student,score\n"
    assert sorted(p.name for p in out.iterdir()) == ["gradebook.csv"]


def test_the_kit_the_network_and_other_processes_are_out_of_reach(zygote, sandboxed):
    readable_by_all = KIT_ROOT / "solutions" / "char_chunk.py"
    assert readable_by_all.stat().st_mode & 0o004
    installed = Path(sysconfig.get_paths()["purelib"]) / "pytest" / "__init__.py"
    proxy = SubmissionProxy(sandboxed(PROBE))
    if "unconfined_files" in zygote.gaps:
        # Without Landlock a file anyone may read stays readable; the report says so.
        assert proxy.reach(str(readable_by_all), False) == "reached"
        return
    # A kit checked out under /tmp lies below the worker's own /tmp: not even seen there.
    kit_below_own_tmp = "disk_per_file" not in zygote.gaps and readable_by_all.is_relative_to(
        "/tmp"
    )
    refused = "FileNotFoundError" if kit_below_own_tmp else "PermissionError"
    assert proxy.reach(str(readable_by_all), False) == refused
    # A virtual environment under /tmp (as CI makes one) lies below the worker's own /tmp.
    own_tmp = "disk_per_file" not in zygote.gaps and installed.is_relative_to("/tmp")
    hidden = "FileNotFoundError" if own_tmp else "PermissionError"
    assert proxy.reach(str(installed), False) == hidden
    assert proxy.reach("/proc/1/cmdline", False) == "PermissionError"
    assert proxy.reach("/etc/passwd", False) == "PermissionError"
    if "unconfined_network" not in zygote.gaps:
        assert proxy.connect(9) == "PermissionError"
    if "unconfined_signals" not in zygote.gaps:
        assert proxy.signal(zygote.process.pid) == "PermissionError"
        assert proxy.signal(os.getpid()) == "PermissionError"


LEAVES_A_PROCESS = """
import ctypes, os, time

def leave(name, target):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)
            for _ in range(100):
                time.sleep(0.05)
                try:
                    with open(target, "a") as handle:
                        handle.write("late")
                except OSError:
                    pass
        os._exit(0)
    return os.getpid()
"""


def running_names() -> list[str]:
    """Names of the processes still running (an ended one waiting to be reaped is not)."""
    names = []
    for entry in Path("/proc").iterdir():
        try:
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            if state not in ("Z", "X"):
                names.append((entry / "comm").read_text().strip())
        except (OSError, IndexError):
            continue
    return names


def ended(name: str) -> bool:
    """Whether no process of this name runs, once signals sent have been delivered."""
    for _ in range(100):
        if name not in running_names():
            return True
        time.sleep(0.01)
    return False


def test_nothing_a_worker_leaves_running_outlives_it(zygote, sandboxed, tmp_path):
    name = f"left-{os.getpid() % 10000}-{int(zygote.memory is not None)}"
    target = tmp_path / "late.txt"
    backend = sandboxed(LEAVES_A_PROCESS)
    SubmissionProxy(backend).leave(name, str(target))
    for _ in range(50):
        if name in running_names():
            break
        time.sleep(0.02)
    assert name in running_names()
    backend.close()
    if not AS_ROOT and zygote.memory is None:
        # As the grading user and without cgroups, a process that left the worker's
        # process group is out of the grader's sight; the report says so.
        assert "same_user" in zygote.gaps
        subprocess.run(["pkill", "-KILL", "-x", name], check=False)
        return
    assert ended(name)


def run_without_root(code: str) -> str:
    """`python -c code` as a user other than root.

    As root, in a user namespace of its own with no id mapped: the process sees
    itself as an unprivileged user (65534) and holds no capability on this
    machine, which is what the sandbox decides by.
    """
    switch = ["unshare", "--user"] if AS_ROOT else []
    result = subprocess.run(
        [*switch, sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    return result.stdout


def test_without_namespaces_or_root_the_sandbox_says_so():
    code = (
        "import json\n"
        "from chunklab.sandbox.limits import Limits\n"
        "from chunklab.sandbox.zygote import Zygote, ZygoteSettings\n"
        "with Zygote(ZygoteSettings(Limits(), namespaces=False)) as zygote:\n"
        "    print(json.dumps([zygote.isolation, list(zygote.gaps)]))\n"
    )
    isolation, gaps = json.loads(run_without_root(code))
    assert isolation == "process"
    assert "same_user" in gaps


def test_the_table_says_when_submissions_ran_as_the_grading_user():
    outline = Outline(
        "a.py", "char_chunk", 1.0, 2.0, "graded", "", "process", ("same_user", "memory_per_process")
    )
    table = results_table([outline])
    assert "sandbox: process isolation" in table
    assert "they can read and write whatever the grader can" in table
    assert "not all of them together" in table
    strong = replace(outline, isolation="namespaces", isolation_gaps=())
    assert "sandbox:" not in results_table([strong])


def test_require_isolation_refuses_where_submissions_would_run_as_the_grader(
    chunklab, tmp_path, monkeypatch
):
    (tmp_path / "char_chunk.py").write_text("def chunk(text, size, overlap):\n    return []\n")
    monkeypatch.setattr(Zygote, "gaps", property(lambda self: ("same_user",)))
    result = chunklab("grade", "--require-isolation", tmp_path)
    assert result.exit_code == 2
    assert "--require-isolation" in result.stderr and "grading user" in result.stderr
    assert result.stdout == ""


def test_require_isolation_grades_where_the_sandbox_holds(chunklab, tmp_path):
    (tmp_path / "char_chunk.py").write_text("def chunk(text, size, overlap):\n    return []\n")
    result = chunklab("grade", "--require-isolation", tmp_path)
    assert result.exit_code == 0
    (report,) = result.reports
    assert report["status"] == "graded"
    assert "same_user" not in report["isolation_gaps"]
