"""A worker reads from an allow-list: a kit, a venv or a class under /usr is not on it.

The folders are the places containers usually put such things: the Docker
convention `/usr/src/app`, a venv in `/usr/local/venv`, a system Python's
`/usr/lib64/python3.X/site-packages`, a share under `/usr/share`. Each holds
a secret; no worker reads or lists one, with namespaces or in process mode
(where Landlock holds the line). The folders are made for the test (it runs
as root) and removed after it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import SANDBOX_DIR, Zygote, ZygoteSettings
from tests.sandbox.sandbox_workers import Workers
from tests.sandbox.test_sandbox_file_system import PROBE

LIMITS = Limits(call_seconds=2.0, submission_seconds=20.0)
PYTHON = f"python3.{sys.version_info.minor}"
SECRET = "reference solution: do not show students"
PLANTED = (
    "/usr/src/app/solutions/char_chunk.py",
    "/usr/src/app/graders/chunklab/__init__.py",
    f"/usr/local/venv/lib/{PYTHON}/site-packages/chunklab/__init__.py",
    "/usr/local/venv/pyvenv.cfg",
    f"/usr/lib64/{PYTHON}/site-packages/classroom/alice/char_chunk.py",
    "/usr/share/chunklab-class/bob/char_chunk.py",
)


def first_missing(path: Path) -> Path:
    """The outermost folder of `path` that does not exist yet (what planting it makes)."""
    missing = path
    while not missing.parent.exists():
        missing = missing.parent
    return missing


@pytest.fixture(scope="module")
def planted() -> Iterator[list[str]]:
    """The planted files; the folders that were made for them are removed after."""
    if os.getuid() != 0:
        pytest.skip("planting files under /usr needs root")
    made = {first_missing(Path(name)) for name in PLANTED}
    for name in PLANTED:
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(SECRET)
    try:
        yield list(PLANTED)
    finally:
        for path in made:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)


@pytest.fixture(scope="module", params=[True, False], ids=["namespaces", "process"])
def workers(request: pytest.FixtureRequest, planted: list[str]) -> Iterator[Workers]:
    with Zygote(ZygoteSettings(LIMITS, namespaces=request.param)) as zygote:
        assert zygote.isolation == ("namespaces" if request.param else "process")
        # In process mode, Landlock is what keeps these files out of reach.
        assert "unconfined_files" not in zygote.gaps
        started = Workers(zygote, LIMITS)
        yield started
        started.close()


def test_no_kit_venv_or_class_under_usr_is_readable(workers, planted):
    folders = sorted({str(Path(name).parent) for name in planted})
    proxy = workers.proxy(PROBE)
    refused = "FileNotFoundError" if workers.zygote.isolation == "namespaces" else "PermissionError"
    assert proxy.read(planted) == dict.fromkeys(planted, refused)
    assert proxy.listing(folders) == dict.fromkeys(folders, refused)


def test_the_standard_library_and_the_libraries_it_loads_are_there(workers):
    # Each of these loads a shared library the zygote has not loaded: found on the list.
    names = ["bz2", "hashlib", "lzma", "sqlite3", "zlib", "json"]
    proxy = workers.proxy(PROBE)
    assert proxy.imports(names) == names
    cache = proxy.read(["/etc/ld.so.cache"])["/etc/ld.so.cache"]
    assert cache == Path("/etc/ld.so.cache").read_bytes().replace(b"\0", b" ").decode(
        errors="replace"
    )


def test_a_grader_that_keeps_its_files_to_itself_still_starts_workers():
    # Under umask 077 the minimal root's folders would be the grader's alone.
    before = os.umask(0o077)
    try:
        zygote = Zygote(ZygoteSettings(LIMITS))
    finally:
        os.umask(before)
    with zygote:
        workers = Workers(zygote, LIMITS)
        try:
            assert workers.proxy(PROBE).imports(["json", "lzma"]) == ["json", "lzma"]
        finally:
            workers.close()


def test_the_allow_list_reads_each_library_once_however_many_modules_need_it():
    code = {"__name__": "chunklab_allow_list"}
    exec(compile((SANDBOX_DIR / "allow_list_main.py").read_text(), "allow_list", "exec"), code)
    read: list[str] = []

    class Noted(code["Elf"]):  # type: ignore[misc,name-defined]
        def __init__(self, path: str) -> None:
            read.append(path)
            super().__init__(path)

    code["Elf"] = Noted
    allowed = code["allow_list"]()
    assert os.path.realpath(sys.executable) in [os.path.realpath(p) for p in read]
    assert allowed["files"]
    assert sorted(read) == sorted(set(read))
