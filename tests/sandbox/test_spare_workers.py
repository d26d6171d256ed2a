"""The zygote makes the next worker while one is graded (the first one too, when asked
to ahead), and never hands out a dead one."""

from __future__ import annotations

import os
import select
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunklab.contract import CodeCell
from chunklab.sandbox import zygote as zygote_module
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import SandboxStartError, Zygote, ZygoteSettings

LIMITS = Limits(call_seconds=5.0, call_floor_seconds=5.0, submission_seconds=30.0, memory_mb=150)


@pytest.fixture
def zygote() -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS)) as started:
        yield started


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_one_worker_makes_no_spare(zygote):
    zygote.spawn().kill()
    assert zygote.spare is None


def test_a_first_worker_asked_for_ahead_is_the_one_handed_out_and_no_spare_follows(zygote):
    zygote.spawn_ahead()
    assert zygote.spare is not None
    made_ahead = zygote.spare.result()
    backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", "x = 1\n"),), LIMITS)
    assert backend.load().problems == ()
    assert backend.worker is made_ahead
    assert zygote.spare is None  # one submission still makes one worker
    backend.close()


def test_closing_the_zygote_at_once_ends_the_worker_asked_for_ahead():
    with Zygote(ZygoteSettings(LIMITS)) as zygote:
        zygote.spawn_ahead()  # the zygote may not even have started when it closes
        ahead = zygote.spare
    assert ahead is not None and ahead.done()
    made = None if ahead.exception() is not None else ahead.result()
    assert made is None or not alive(made.pid)


def test_a_zygote_that_cannot_start_says_why_to_the_first_worker_asked_for_ahead_and_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    for name in ("worker_main.py", "confinement_main.py", "allow_list_main.py"):
        shutil.copy(zygote_module.SANDBOX_DIR / name, tmp_path)
    (tmp_path / "zygote_main.py").write_text(
        "import sys\nsys.stderr.write('no sandbox here')\nsys.exit(1)\n"
    )
    monkeypatch.setattr(zygote_module, "SANDBOX_DIR", tmp_path)
    with Zygote(ZygoteSettings(LIMITS)) as zygote:
        zygote.spawn_ahead()
        for _ in range(2):
            with pytest.raises(SandboxStartError, match="could not start: no sandbox here"):
                zygote.spawn()


def test_from_the_second_worker_on_the_next_one_is_made_ahead(zygote):
    zygote.spawn().kill()
    second = zygote.spawn()
    assert zygote.spare is not None
    made_ahead = zygote.spare.result()
    second.kill()
    assert zygote.spawn() is made_ahead


def test_a_spare_that_died_is_never_handed_out(zygote):
    zygote.spawn().kill()
    zygote.spawn().kill()
    assert zygote.spare is not None
    dead = zygote.spare.result()
    os.kill(dead.pid, signal.SIGKILL)
    assert dead.pidfd is not None
    select.select([dead.pidfd], [], [], 10)
    assert dead.has_ended()
    backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", "x = 1\n"),), LIMITS)
    assert backend.load().problems == ()
    assert backend.worker is not None and backend.worker.pid != dead.pid
    backend.close()


def test_closing_the_zygote_ends_its_spare():
    with Zygote(ZygoteSettings(LIMITS)) as zygote:
        zygote.spawn().kill()
        zygote.spawn().kill()
        assert zygote.spare is not None
        spare = zygote.spare.result()
        assert alive(spare.pid)
    assert not alive(spare.pid)


def test_a_spare_keeps_no_thread_running(zygote):
    # A process that forks grading processes forks only while it runs no other thread.
    before = set(threading.enumerate())
    zygote.spawn().kill()
    zygote.spawn().kill()
    assert zygote.spare is not None
    zygote.spare.result()
    for thread in set(threading.enumerate()) - before:
        if thread.name == "chunklab-spare":
            thread.join(5)
    assert set(threading.enumerate()) - before == set()


def test_closing_while_the_next_worker_is_still_being_made_ends_cleanly():
    # The zygote is ended under the spare's feet: its thread fails to read, close does not.
    for _ in range(5):
        with Zygote(ZygoteSettings(LIMITS)) as zygote:
            zygote.spawn().kill()
            zygote.spawn()  # from the second worker on, the next one is made ahead
            spare = zygote.spare
        assert spare is not None and spare.done()
