"""What a worker writes is bounded all together, and whatever it leaves is removed.

With namespaces, /work and /tmp are one tmpfs of --file-size-mb. Without
them, a root grader mounts a tmpfs of that size as each worker's folder (and
on /tmp, /var/tmp and /dev/shm, in a mount namespace of the worker's own);
where none can be mounted, each file is bounded on its own and the report
says so (`disk_per_file`). A worker's folder, however deep the tree left in
it, is removed without recursion and without ending the run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunklab.sandbox.limits import Limits
from chunklab.sandbox.work_folder import remove_folder
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy
from tests.sandbox.sandbox_workers import Workers

# Every call gets its whole --call-seconds: making the deep tree is the work being timed.
LIMITS = Limits(call_seconds=5.0, call_floor_seconds=5.0, submission_seconds=30.0, file_size_mb=1)
AS_ROOT = os.getuid() == 0
DEPTH = 3000

WRITER = """
import os

def write(paths, kb):
    done = {}
    for path in paths:
        try:
            with open(path, "wb") as handle:
                handle.write(b"x" * (kb * 1024))
            done[path] = "written"
        except OSError as error:
            done[path] = f"OSError: {error.errno}"
    return done

def deep(depth):
    for _ in range(depth):
        os.mkdir("d")
        os.chdir("d")
    with open("leaf", "w") as handle:
        handle.write("left behind")
    return depth
"""


# Folders made in memory where the machine has /dev/shm: a deep tree costs no disk writes.
FAST_FOLDER = "/dev/shm" if os.path.isdir("/dev/shm") else None


def zygote_of(**settings: bool) -> Iterator[Workers]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", FAST_FOLDER)
        zygote = Zygote(ZygoteSettings(LIMITS, **settings))
    with zygote:
        workers = Workers(zygote, LIMITS)
        yield workers
        workers.close()


@pytest.fixture(scope="module")
def in_namespaces() -> Iterator[Workers]:
    yield from zygote_of()


@pytest.fixture(scope="module", params=[True, False], ids=["own-disk", "no-own-disk"])
def in_process_mode(request: pytest.FixtureRequest) -> Iterator[Workers]:
    yield from zygote_of(namespaces=False, own_disk=request.param)


def test_with_namespaces_work_and_tmp_are_bounded_together(in_namespaces):
    assert in_namespaces.zygote.isolation == "namespaces"
    written = in_namespaces.proxy(WRITER).write(["/work/a", "/tmp/b"], 600)
    assert written == {"/work/a": "written", "/tmp/b": "OSError: 28"}  # ENOSPC


@pytest.mark.skipif(not AS_ROOT, reason="a tmpfs per worker needs root without namespaces")
def test_in_process_mode_all_a_worker_writes_is_bounded_together(in_process_mode):
    zygote = in_process_mode.zygote
    if not zygote.settings.own_disk:
        assert "disk_per_file" in zygote.gaps
        return
    assert "disk_per_file" not in zygote.gaps
    backend = in_process_mode.backend(WRITER)
    written = SubmissionProxy(backend).write(["a", "/dev/shm/b", "/var/tmp/c"], 600)
    assert written == {"a": "written", "/dev/shm/b": "OSError: 28", "/var/tmp/c": "OSError: 28"}
    folder = backend.worker.work_dir
    assert folder is not None and list(folder.iterdir()) == []  # the files are not on disk
    assert not Path("/dev/shm/b").exists()


def test_a_deep_tree_left_behind_is_removed_and_the_run_goes_on(in_process_mode):
    backend = in_process_mode.backend(WRITER)
    assert SubmissionProxy(backend).deep(DEPTH) == DEPTH
    folder = backend.worker.work_dir
    assert folder is not None and folder.is_dir()
    backend.close()  # ends the worker and removes its folder
    assert not folder.exists()
    # The same zygote grades the next submission.
    assert in_process_mode.next_proxy(WRITER).write(["a"], 1) == {"a": "written"}


def test_removing_a_folder_never_recurses_nor_leaves_it(tmp_path):
    top = Path(tempfile.mkdtemp(dir=FAST_FOLDER))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the worker's")
    fd = os.open(top, os.O_RDONLY)
    for _ in range(DEPTH):
        os.mkdir("d", dir_fd=fd)
        os.symlink(str(outside), "link", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(fd)
    assert remove_folder(top)
    assert not top.exists()
    assert (outside / "keep.txt").read_text() == "not the worker's"
    assert remove_folder(top)  # already gone: nothing to do
