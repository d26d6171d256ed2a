"""Hostile submissions: each threat, and exactly what it achieves (nothing).

Damage stays bounded even if the sandbox were broken: no real fork bomb,
memory requests well under 4 GB, and the tests that could harm this
machine without namespaces only run where namespaces isolate the worker.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from chunklab.contract import CallTimedOut, CodeCell, ProtocolBroken, WorkerCrashed
from chunklab.lessons import LESSONS
from chunklab.sandbox.answer_shape import BROKEN_PROTOCOL
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy

KIT_ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(call_seconds=1.0, submission_seconds=20.0)


@pytest.fixture(scope="module", params=[True, False], ids=["clone", "middle-process"])
def zygote(request: pytest.FixtureRequest) -> Iterator[Zygote]:
    """Both ways of making a worker: one clone(2), or unshare(2) and a middle process."""
    with Zygote(ZygoteSettings(LIMITS, direct_clone=request.param)) as started:
        yield started


@pytest.fixture(scope="module")
def isolated(zygote: Zygote) -> bool:
    return zygote.isolation == "namespaces"


@pytest.fixture
def needs_namespaces(isolated: bool) -> None:
    if not isolated:
        pytest.skip("this machine has no user namespaces: the threat would reach the real system")


@pytest.fixture
def sandboxed(zygote: Zygote) -> Iterator[Callable[[str], SubmissionProxy]]:
    """Load source text into a fresh worker and hand back its proxy."""
    backends: list[SandboxBackend] = []

    def load(source: str, limits: Limits = LIMITS) -> SubmissionProxy:
        backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", source),), limits)
        backends.append(backend)
        loaded = backend.load()
        assert not [p for p in loaded.problems if p.kind == "syntax_error"], loaded
        return SubmissionProxy(backend)

    yield load
    for backend in backends:
        backend.close()


def graded(chunklab, tmp_path: Path, files: dict[str, str], *args: str) -> dict[str, dict]:
    folder = tmp_path / "class"
    folder.mkdir(exist_ok=True)
    for name, source in files.items():
        (folder / name).write_text(source)
    result = chunklab("grade", "--call-seconds", "1", *args, folder)
    assert result.exit_code == 0, result.stderr
    return {Path(r["submission"]).name: r for r in result.reports}


REFERENCE = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()


def test_an_always_equal_object_scores_only_what_it_holds(chunklab, tmp_path):
    # A list subclass crosses as the list it holds; its own __eq__ never runs in the grader.
    hostile = (
        "class AlwaysEqual(list):\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n"
        "def chunk(text, size, overlap):\n    return AlwaysEqual()\n"
    )
    empty = "def chunk(text, size, overlap):\n    return []\n"
    files = {"always_equal.py": hostile, "empty.py": empty}
    reports = graded(chunklab, tmp_path, files, "--lesson", "char_chunk")
    report, plain = reports["always_equal.py"], reports["empty.py"]
    assert report["status"] == "graded"
    assert report["score"] == plain["score"] < report["max_score"] / 4
    assert [t["outcome"] for t in report["tests"]] == [t["outcome"] for t in plain["tests"]]
    assert not any("AlwaysEqual" in t["feedback"] for t in report["tests"])


def test_an_always_equal_object_that_is_no_list_scores_nothing(chunklab, tmp_path):
    hostile = (
        "class AlwaysEqual:\n"
        "    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n"
        "def chunk(text, size, overlap):\n    return AlwaysEqual()\n"
    )
    reports = graded(chunklab, tmp_path, {"char_chunk.py": hostile})
    report = reports["char_chunk.py"]
    assert report["status"] == "graded"
    assert report["score"] == 0
    failed = [t for t in report["tests"] if t["outcome"] != "passed"]
    assert len(failed) == len(report["tests"])
    assert any("AlwaysEqual" in t["feedback"] for t in failed)


def test_patching_pytest_changes_nothing(chunklab, tmp_path):
    # Importing pytest is refused (standard library only); what is left is tampering.
    attempt = (
        "import sys\n"
        "sys.modules['pytest'] = None\n"
        "sys.modules['_pytest'] = None\n"
        "def chunk(text, size, overlap):\n    return []\n"
    )
    honest = "def chunk(text, size, overlap):\n    return []\n"
    reports = graded(chunklab, tmp_path, {"a_char_chunk.py": attempt, "b_char_chunk.py": honest})
    assert reports["a_char_chunk.py"]["score"] == reports["b_char_chunk.py"]["score"]
    assert reports["a_char_chunk.py"]["tests"] == reports["b_char_chunk.py"]["tests"]


def test_grader_code_is_not_importable_in_the_worker(sandboxed):
    proxy = sandboxed(
        "import importlib\n"
        "def importable(names):\n"
        "    found = []\n"
        "    for name in names:\n"
        "        try:\n            importlib.import_module(name)\n            found.append(name)\n"
        "        except ImportError:\n            pass\n"
        "    return found\n"
    )
    assert proxy.importable(["pytest", "chunklab", "hypothesis", "json"]) == ["json"]


def test_exiting_in_calls_fails_only_the_calls(chunklab, tmp_path):
    files = {
        "a_char_chunk.py": "import sys\ndef chunk(text, size, overlap):\n    sys.exit(0)\n",
        "b_char_chunk.py": "import os\ndef chunk(text, size, overlap):\n    os._exit(0)\n",
        "c_char_chunk.py": REFERENCE,
    }
    reports = graded(chunklab, tmp_path, files)
    assert reports["a_char_chunk.py"]["score"] == 0
    assert {t["outcome"] for t in reports["a_char_chunk.py"]["tests"]} == {"failed"}
    assert "SystemExit" in reports["a_char_chunk.py"]["tests"][0]["feedback"]
    assert reports["b_char_chunk.py"]["score"] == 0
    assert {t["outcome"] for t in reports["b_char_chunk.py"]["tests"]} == {"error"}
    assert "ended the process" in reports["b_char_chunk.py"]["tests"][0]["feedback"]
    assert reports["c_char_chunk.py"]["score"] == reports["c_char_chunk.py"]["max_score"]


def test_exiting_at_import(chunklab, tmp_path):
    files = {
        "a_char_chunk.py": REFERENCE + "\nimport sys\nsys.exit(0)\n",
        "b_char_chunk.py": "import os\nos._exit(0)\n" + REFERENCE,
    }
    reports = graded(chunklab, tmp_path, files)
    # sys.exit raises SystemExit, which is caught: what was defined before it still counts.
    assert reports["a_char_chunk.py"]["score"] == reports["a_char_chunk.py"]["max_score"]
    assert "SystemExit" in reports["a_char_chunk.py"]["warnings"][0]["message"]
    assert reports["b_char_chunk.py"]["status"] == "error"
    assert reports["b_char_chunk.py"]["errors"][0]["kind"] == "worker_died"


def test_forged_json_on_stdout_is_ignored(chunklab, tmp_path):
    forged = json.dumps(
        {
            "lesson": "char_chunk",
            "submission": "char_chunk.py",
            "status": "graded",
            "score": 99.0,
            "max_score": 99.0,
        }
    )
    source = (
        f"print({forged!r})\n"
        "import sys\n"
        "def chunk(text, size, overlap):\n"
        f"    print({forged!r}, flush=True)\n"
        f"    sys.__stdout__.write({forged!r} + '\\n')\n"
        "    return []\n"
    )
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "char_chunk.py").write_text(source)
    result = chunklab("grade", folder)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["score"] < 99.0 and report["max_score"] != 99.0


def test_infinite_loop_in_one_test_times_out_that_test_only(chunklab, tmp_path):
    looping = REFERENCE + (
        "\n_honest = chunk\n"
        "def chunk(text, size, overlap):\n"
        "    if text == 'abcdefghij' and (size, overlap) == (3, 0):\n"
        "        while True:\n            pass\n"
        "    return _honest(text, size, overlap)\n"
    )
    report = graded(chunklab, tmp_path, {"char_chunk.py": looping}, "--hidden-feedback", "full")[
        "char_chunk.py"
    ]
    timed_out = [t for t in report["tests"] if t["outcome"] == "timeout"]
    others = [t for t in report["tests"] if t["outcome"] != "timeout"]
    assert timed_out, "the looping input is used by at least one grader test"
    for test in timed_out:
        assert "'abcdefghij', 3, 0" in test["feedback"]
    assert (
        "did not finish in time: it ran far longer than this input needs"
        in (timed_out[0]["feedback"])
    )
    assert {t["outcome"] for t in others} == {"passed"}
    assert report["score"] == report["max_score"] - sum(t["max_score"] for t in timed_out)


def test_memory_hog_fails_its_call(sandboxed):
    proxy = sandboxed(
        "def hog():\n    block = bytearray(3 * 1024 ** 3)\n    return len(block)\n"
        "def small():\n    return len(bytearray(10 * 1024 ** 2))\n"
    )
    with pytest.raises(MemoryError):
        proxy.hog()
    assert proxy.small() == 10 * 1024**2


def test_print_flood_is_cut(chunklab, tmp_path):
    flood = (
        "import sys\n"
        "flooded = []\n"
        "def chunk(text, size, overlap):\n"
        "    if not flooded:\n"
        "        flooded.append(True)\n"
        "        block = b'x' * (1024 * 1024)\n"
        "        for _ in range(200):\n"
        "            sys.stdout.buffer.write(block)\n"
        "    return []\n"
    )
    report = graded(
        chunklab,
        tmp_path,
        {"char_chunk.py": flood},
        "--submission-seconds",
        "60",
        "--call-seconds",
        "10",
    )["char_chunk.py"]
    assert report["status"] == "graded"
    assert [w["kind"] for w in report["warnings"]] == ["output_cut"]
    assert "64 KB" in report["warnings"][0]["message"]


def test_process_spawning_is_limited(sandboxed, needs_namespaces):
    proxy = sandboxed(
        "import os, time\n"
        "def spawn(count):\n"
        "    made = 0\n"
        "    for _ in range(count):\n"
        "        try:\n            pid = os.fork()\n"
        "        except OSError:\n            break\n"
        "        if pid == 0:\n            time.sleep(30)\n            os._exit(0)\n"
        "        made += 1\n"
        "    return made\n"
    )
    # The worker itself is one of the allowed processes.
    assert proxy.spawn(3 * LIMITS.processes) == LIMITS.processes - 1


def test_files_solutions_and_hidden_tests_are_out_of_reach(sandboxed, needs_namespaces):
    secrets = [
        str(KIT_ROOT / "solutions" / "char_chunk.py"),
        str(KIT_ROOT / "graders" / "chunklab" / "suites" / "char_chunk" / "test_hidden.py"),
        str(KIT_ROOT / "README.md"),
        "/etc/passwd",
        os.path.expanduser("~/.bash_history"),
    ]
    proxy = sandboxed(
        "import os\n"
        "def readable(paths):\n"
        "    found = []\n"
        "    for path in paths:\n"
        "        try:\n            open(path).read(1)\n            found.append(path)\n"
        "        except OSError:\n            pass\n"
        "    return found\n"
        "def through_proc():\n"
        "    pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "    seen = []\n"
        "    for pid in pids:\n"
        "        for link in ('root', 'cwd'):\n"
        "            try:\n                seen += os.listdir(f'/proc/{pid}/{link}')\n"
        "            except OSError:\n                pass\n"
        "    return {'pids': pids, 'seen': sorted(set(seen))}\n"
        "def network():\n"
        "    import socket\n"
        "    try:\n        socket.create_connection(('1.1.1.1', 53), timeout=0.5)\n"
        "        return 'connected'\n"
        "    except OSError as error:\n        return type(error).__name__\n"
    )
    assert proxy.readable(secrets) == []
    view = proxy.through_proc()
    # Only the worker itself, PID 1 of its own namespace, and a root with nothing of the kit.
    assert view["pids"] == ["1"]
    assert "solutions" not in view["seen"] and "graders" not in view["seen"]
    assert set(view["seen"]) <= {
        "bin",
        "dev",
        "etc",
        "lib",
        "lib64",
        "lib32",
        "proc",
        "root",
        "sbin",
        "tmp",
        "usr",
        "work",
    }
    assert proxy.network() == "OSError"


def test_killing_the_parent_is_impossible(chunklab, tmp_path, needs_namespaces):
    attack = (
        "import os, signal\n"
        "for pid in [os.getppid()] + [int(p) for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    if pid not in (0, 1, os.getpid()):\n"
        "        try:\n            os.kill(pid, signal.SIGKILL)\n"
        "        except OSError:\n            pass\n"
        "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\n"
    ) + REFERENCE
    reports = graded(chunklab, tmp_path, {"a_char_chunk.py": attack, "b_char_chunk.py": REFERENCE})
    for report in reports.values():
        assert report["score"] == report["max_score"] > 0


def test_signalling_its_own_process_group_reaches_no_other_worker(zygote, sandboxed):
    # In a PID namespace of its own a worker's parent is pid 0, and kill(0) signals every
    # process of the sender's group: that must hold only the worker and what it started.
    other = sandboxed(REFERENCE)
    assert other.chunk("abcdef", 4, 1) == ["abcd", "def"]
    attack = (
        "import os, signal\n"
        "for kill in (lambda: os.kill(os.getppid(), signal.SIGKILL),\n"
        "             lambda: os.kill(0, signal.SIGKILL),\n"
        "             lambda: os.killpg(os.getpgrp(), signal.SIGKILL)):\n"
        "    try:\n        kill()\n    except OSError:\n        pass\n"
    ) + REFERENCE
    backend = SandboxBackend(zygote, (CodeCell(0, "attack.py", attack),), LIMITS)
    try:
        backend.load()
    finally:
        backend.close()
    assert other.chunk("abcdef", 4, 1) == ["abcd", "def"]
    assert sandboxed(REFERENCE).chunk("abc", 2, 0) == ["ab", "c"]


ABSTRACT_SOCKET = (
    "import socket\n"
    "held = []\n"
    "def listen():\n"
    "    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    server.bind('\\0chunklab-between-workers')\n"
    "    server.listen()\n"
    "    held.append(server)\n"
    "    return 'listening'\n"
    "def reach():\n"
    "    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "    try:\n"
    "        client.connect('\\0chunklab-between-workers')\n"
    "    except OSError as error:\n"
    "        return type(error).__name__\n"
    "    return 'connected'\n"
)


def test_two_workers_alive_at_once_share_no_socket(sandboxed, needs_namespaces):
    # A test's worker waits while a failed check's inputs to try go to another worker of
    # the same submission: nothing may pass between them, nor between two submissions.
    waiting = sandboxed(ABSTRACT_SOCKET)
    assert waiting.listen() == "listening"
    assert waiting.reach() == "connected"  # within one worker, the socket works
    assert sandboxed(ABSTRACT_SOCKET).reach() == "ConnectionRefusedError"


LOCKING = (
    "import fcntl, os\n"
    "calls = []\n"
    "def count():\n"
    "    calls.append(1)\n"
    "    return len(calls)\n"
    "def hold():\n"
    "    calls.append(open(os.__file__))\n"
    "    fcntl.lockf(calls[-1], fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 5)\n"
    "    return 'held'\n"
    "def held_elsewhere():\n"
    "    import struct\n"
    "    asked = struct.pack('hhqqi', fcntl.F_WRLCK, 0, 5, 1, 0)\n"
    "    with open(os.__file__) as file:\n"
    "        found = fcntl.fcntl(file, fcntl.F_GETLK, asked)\n"
    "    return struct.unpack('hhqqi', found)[0] != fcntl.F_UNLCK\n"
    "def spin():\n"
    "    while True:\n"
    "        pass\n"
)


def test_a_worker_started_again_starts_only_once_the_one_before_has_ended(sandboxed):
    # After a timeout the calls go to a new worker: had the one before still been alive
    # (spinning, say), a file lock, or any other mark two processes can both see, could
    # pass on what it was given.
    proxy = sandboxed(LOCKING)
    assert (proxy.count(), proxy.count(), proxy.hold()) == (1, 2, "held")
    before = proxy._backend.worker
    with pytest.raises(CallTimedOut):
        proxy.spin()
    proxy.begin_test()  # the next test: the timeout is forgotten, the worker is new
    assert before is not None and not before.alive
    assert (proxy.count(), proxy.held_elsewhere()) == (1, False)


def test_output_folder_is_out_of_reach_even_for_a_detached_child(
    chunklab, tmp_path, needs_namespaces
):
    out = tmp_path / "out"
    escape = (
        "import ctypes, os, time\n"
        "def _detach(target):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        ctypes.CDLL(None).prctl(15, b'chunklab-escape', 0, 0, 0)\n"
        "        for _ in range(40):\n"
        "            time.sleep(0.05)\n"
        "            for name in ('forged.json', 'gradebook.csv'):\n"
        "                try:\n"
        "                    with open(os.path.join(target, name), 'w') as f:\n"
        "                        f.write('{}')\n"
        "                except OSError:\n                    pass\n"
        "        os._exit(0)\n"
        f"_detach({str(out)!r})\n"
        f"_detach({str(out / 'submissions')!r})\n"
    ) + REFERENCE
    reports = graded(chunklab, tmp_path, {"char_chunk.py": escape}, "--out", str(out))
    time.sleep(2.5)
    assert sorted(p.name for p in out.iterdir()) == [
        ".chunklab-resume.jsonl",
        "feedback",
        "gradebook.csv",
        "gradebook_wide.csv",
        "report.html",
        "rules.csv",
        "submissions",
        "summary.json",
    ]
    assert not (out / "forged.json").exists()
    assert "char_chunk" in (out / "gradebook.csv").read_text()
    assert reports["char_chunk.py"]["score"] == reports["char_chunk.py"]["max_score"]
    names = []
    for entry in Path("/proc").iterdir():
        try:
            names.append((entry / "comm").read_text().strip())
        except OSError:
            continue
    assert "chunklab-escape" not in names


def test_a_crash_in_a_call_replaces_the_worker(sandboxed):
    proxy = sandboxed(
        "import os\ndef crash():\n    os._exit(1)\ndef fine():\n    return 'still here'\n"
    )
    with pytest.raises(WorkerCrashed):
        proxy.crash()
    assert proxy.fine() == "still here"


def test_printed_output_is_kept_up_to_the_limit_only(zygote):
    source = (
        "import sys\n"
        "def flood():\n"
        "    block = b'y' * (1024 * 1024)\n"
        "    for _ in range(200):\n"
        "        sys.stdout.buffer.write(block)\n"
        "    return 'done'\n"
    )
    # Writing 200 MB takes a while: this call gets the whole --call-seconds.
    limits = Limits(call_seconds=5.0, call_floor_seconds=5.0)
    backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", source),), limits)
    backend.load()
    assert SubmissionProxy(backend).flood() == "done"
    printed = backend.close()
    assert printed == "y" * (LIMITS.output_kb * 1024)
    assert backend.output_was_cut


def test_files_are_limited_in_size(sandboxed, needs_namespaces):
    proxy = sandboxed(
        "def write(megabytes):\n"
        "    try:\n"
        "        with open('big.bin', 'wb') as handle:\n"
        "            for _ in range(megabytes):\n"
        "                handle.write(b'z' * 1024 * 1024)\n"
        "    except OSError as error:\n"
        "        return type(error).__name__ + ': ' + str(error.errno)\n"
        "    return 'written'\n"
    )
    assert proxy.write(1) == "written"
    # Past the file size limit the write fails (EFBIG), it does not fill the disk.
    assert proxy.write(LIMITS.file_size_mb + 8) == "OSError: 27"


# Every process of the submission names itself so, where the grading process can see it.
LEAK_NAME = "chunklab-leak"
LEAKING = (
    "import ctypes, os, time\n"
    "def _name():\n"
    f"    ctypes.CDLL(None).prctl(15, {LEAK_NAME.encode()!r}, 0, 0, 0)\n"
    "for _ in range(3):\n"
    "    if os.fork() == 0:\n"
    "        _name()\n"
    "        while True:\n            time.sleep(1)\n"
    "_name()\n"
)
FORGED_LOAD = (
    LEAKING
    + "import json\n"
    + "os.write(4, (json.dumps({'problems': [1], 'defined': ['chunk']}) + '\\n').encode())\n"
    + "while True:\n    time.sleep(1)\n"
)


def leaked(wait: float = 10.0) -> list[int]:
    """The submission's processes still running, once they had `wait` seconds to end."""
    deadline = time.monotonic() + wait
    while True:
        running = []
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, _, rest = stat.partition("(")[2].rpartition(")")
            if name == LEAK_NAME and not rest.startswith(" Z"):  # a zombie runs nothing
                running.append(int(entry.name))
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.05)


def test_a_forged_answer_is_the_submissions_error_and_nothing_of_it_outlives_its_grading(
    chunklab, tmp_path, monkeypatch
):
    from chunklab.pipeline.session import OpenedSubmission

    opened = OpenedSubmission.open
    seen_at_open: dict[str, list[int]] = {}

    def open_and_look(self: OpenedSubmission) -> SubmissionProxy:
        # What the submissions graded before this one left running.
        seen_at_open[self.source.path.name] = leaked()
        return opened(self)

    monkeypatch.setattr(OpenedSubmission, "open", open_and_look)
    forged_call = (
        "import os\n"
        "def chunk(text, size, overlap):\n"
        '    os.write(4, b\'{"problems": [], "defined": []}\\n\')\n'
        "    return [text]\n"
    )
    files = {
        "a_char_chunk.py": FORGED_LOAD + REFERENCE,
        "b_char_chunk.py": forged_call,
        "c_char_chunk.py": REFERENCE,
    }
    reports = graded(chunklab, tmp_path, files, "--jobs", "1")
    for name in ("a_char_chunk.py", "b_char_chunk.py"):
        assert reports[name]["status"] == "error"
        assert reports[name]["score"] == 0
        assert reports[name]["errors"] == [{"kind": "broken_protocol", "message": BROKEN_PROTOCOL}]
    honest = reports["c_char_chunk.py"]
    assert honest["status"] == "graded"
    assert honest["score"] == honest["max_score"] == 37
    assert {t["outcome"] for t in honest["tests"]} == {"passed"}
    assert seen_at_open == {"a_char_chunk.py": [], "b_char_chunk.py": [], "c_char_chunk.py": []}


def test_after_a_broken_protocol_no_call_reaches_the_submission(zygote):
    source = (
        "import os\n"
        "def forge():\n    os.write(4, b'[1]\\n')\n    return 1\n"
        "def fine():\n    return 2\n"
    )
    backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", source),), LIMITS)
    backend.load()
    proxy = SubmissionProxy(backend)
    with pytest.raises(ProtocolBroken):
        proxy.forge()
    spawned = zygote.spawned
    with pytest.raises(ProtocolBroken) as broken:
        proxy.fine()
    assert str(broken.value) == f"Input: fine()\n{BROKEN_PROTOCOL}"
    assert zygote.spawned == spawned  # no worker started again for it
    backend.close()


def test_whatever_fails_while_a_submission_is_opened_its_processes_end(zygote, monkeypatch):
    from chunklab.pipeline import session as grading

    def grader_bug(*args: object) -> None:
        raise RuntimeError("a bug in the grader")

    monkeypatch.setattr(grading, "require_entry_point", grader_bug)
    source = LEAKING + REFERENCE
    cells = (CodeCell(0, "submission.py", source),)
    submission = SimpleNamespace(
        cells=cells, local_modules=(), lesson=LESSONS["char_chunk"], kind="python"
    )
    session = grading.GradingSession(None, LIMITS, zygote=zygote)
    opened = grading.OpenedSubmission(submission, session)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        opened.open()
    assert opened.backend is not None and opened.backend.worker is not None
    assert not opened.backend.worker.alive
    assert leaked() == []
