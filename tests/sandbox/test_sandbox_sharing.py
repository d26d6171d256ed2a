"""Workers share nothing: what one worker leaves behind, the next one cannot find.

Each threat runs hostile source through the real sandbox, in every way this
machine can make a worker: one clone(2), unshare(2) with a middle process,
and without namespaces (process mode, as the grader's user allows).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator

import pytest

from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy
from tests.sandbox.sandbox_workers import Workers

LIMITS = Limits(call_seconds=2.0, submission_seconds=20.0)
MODES = {
    "clone": ZygoteSettings(LIMITS, direct_clone=True),
    "middle-process": ZygoteSettings(LIMITS, direct_clone=False),
    "process": ZygoteSettings(LIMITS, namespaces=False),
}

# A key no other program on this machine uses.
IPC_KEY = 0x5EC12E7
SYSV_IPC = f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
KEY, CREATE = {IPC_KEY}, 0o1000 | 0o666

def leave(text):
    memory = libc.shmget(KEY, 4096, CREATE)
    ctypes.memmove(libc.shmat(memory, None, 0), text.encode(), len(text))
    return [memory >= 0, libc.semget(KEY, 1, CREATE) >= 0, libc.msgget(KEY, CREATE) >= 0]

def find():
    found = []
    memory = libc.shmget(KEY, 0, 0)
    if memory >= 0:
        found.append(ctypes.string_at(libc.shmat(memory, None, 0), 6).decode())
    if libc.semget(KEY, 0, 0) >= 0:
        found.append("semaphore")
    if libc.msgget(KEY, 0, 0) >= 0:
        found.append("queue")
    return found
"""

KEYRINGS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[os.uname().machine]
# session, user, user-session keyrings; then the persistent one, linked into the session's.
RINGS = (-3, -4, -5)

def keyctl(*args):
    return libc.syscall(KEYCTL, *[ctypes.c_long(a) if type(a) is int else a for a in args])

def rings():
    persistent = keyctl(22, -1, -3)
    return RINGS + ((persistent,) if persistent > 0 else ())

def leave(text):
    placed = 0
    for ring in rings():
        made = libc.syscall(ADD_KEY, b"user", b"left-behind", text.encode(), len(text),
                            ctypes.c_long(ring))
        if made > 0:
            keyctl(5, made, 0x3F3F3F3F)  # anyone may read it
            placed += 1
    return placed

def find():
    found = []
    for ring in rings():
        key = keyctl(10, ring, ctypes.c_char_p(b"user"), ctypes.c_char_p(b"left-behind"), 0)
        if key > 0:
            buffer = ctypes.create_string_buffer(64)
            size = keyctl(11, key, ctypes.addressof(buffer), 64)
            found.append(buffer.raw[: max(size, 0)].decode())
    try:
        with open("/proc/keys") as keys:
            found += [line for line in keys if "left-behind" in line]
    except OSError:
        pass
    return found
"""


@pytest.fixture(scope="module", params=list(MODES))
def zygote(request: pytest.FixtureRequest) -> Iterator[Zygote]:
    with Zygote(MODES[request.param]) as started:
        yield started


@pytest.fixture
def worker(zygote: Zygote) -> Iterator[Callable[[str], SubmissionProxy]]:
    """A fresh worker for each call, the one before it ended first."""
    workers = Workers(zygote, LIMITS)
    yield workers.next_proxy
    workers.close()


def host_ipc_keys() -> str:
    return subprocess.run(["ipcs"], capture_output=True, text=True, check=False).stdout


def test_system_v_ipc_left_by_one_worker_is_invisible_to_the_next(zygote, worker):
    first = worker(SYSV_IPC)
    assert first.leave("secret") == [True, True, True]
    assert first.find() == ["secret", "semaphore", "queue"]
    later = worker(SYSV_IPC)
    if "shared_ipc" in zygote.gaps:
        # Only where neither namespaces nor root are had; the report says so.
        assert zygote.isolation == "process"
        return
    assert later.find() == []
    # Nothing is left on the machine either once the worker has ended.
    assert f"{IPC_KEY:#010x}" not in host_ipc_keys()


def test_keys_left_by_one_worker_are_invisible_to_the_next(zygote, worker):
    first = worker(KEYRINGS)
    placed = first.leave("secret")
    later = worker(KEYRINGS)
    if "shared_keys" in zygote.gaps:
        # Only where no seccomp filter can be had; the report says so.
        assert zygote.gaps == ("shared_keys",) or zygote.isolation == "process"
        return
    # Making a key fails in every keyring, so nothing can be left for the next worker.
    assert placed == 0
    assert later.find() == []
