"""What a worker's file system and /proc hold: the standard library, and nothing of the kit.

Each sentence of the README's "What the sandbox promises" about files has a
test here, run with hostile source through the real sandbox (namespaces).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

import chunklab
from chunklab.kit import cache_dir
from chunklab.reading.source import CodeCell
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy

KIT_ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(call_seconds=2.0, submission_seconds=20.0)

PROBE = """
import os

def listing(paths):
    found = {}
    for path in paths:
        try:
            found[path] = sorted(os.listdir(path))
        except OSError as error:
            found[path] = type(error).__name__
    return found

def read(paths):
    found = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                found[path] = handle.read().replace(b"\\0", b" ").decode(errors="replace")
        except OSError as error:
            found[path] = type(error).__name__
    return found

def imports(names):
    import importlib
    found = []
    for name in names:
        try:
            importlib.import_module(name)
            found.append(name)
        except ImportError:
            pass
    return found
"""


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS)) as started:
        assert started.isolation == "namespaces", started.problem
        yield started


@pytest.fixture
def worker(zygote: Zygote) -> Iterator[SubmissionProxy]:
    backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", PROBE),), LIMITS)
    backend.load()
    yield SubmissionProxy(backend)
    backend.close()


def installed_package_folders() -> list[str]:
    """Every site-packages or dist-packages folder this machine's Pythons use."""
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    folders = {
        sysconfig.get_paths(vars=base)["purelib"],
        sysconfig.get_paths(vars=base)["platlib"],
        sysconfig.get_paths()["purelib"],
    }
    folders |= {str(p) for p in Path("/usr/lib").glob("python3*/*-packages")}
    folders |= {str(p) for p in Path("/usr/local/lib").glob("python3*/*-packages")}
    return sorted(f for f in folders if os.path.isdir(f))


def test_the_standard_library_is_there(worker):
    stdlib = sysconfig.get_paths()["stdlib"]
    assert {"json", "re", "collections"} <= set(worker.listing([stdlib])[stdlib])
    assert worker.imports(["statistics", "decimal", "heapq", "unicodedata"]) == [
        "statistics",
        "decimal",
        "heapq",
        "unicodedata",
    ]


def test_no_installed_package_is_there(worker):
    folders = installed_package_folders()
    # The interpreter's own site-packages sits inside its standard library folder.
    assert any(f.startswith(sysconfig.get_paths()["stdlib"]) for f in folders)
    seen = worker.listing(folders)
    # Every folder is empty or absent: pytest, Hypothesis and a chunklab installed
    # without `-e` (into any of them) are not there to read.
    assert {
        path: entries for path, entries in seen.items() if entries not in ([], "FileNotFoundError")
    } == {}


def test_the_kit_and_its_tools_are_unreachable(worker):
    secrets = [
        str(Path(chunklab.__file__).parent),
        str(KIT_ROOT / "graders" / "chunklab" / "suites"),
        str(KIT_ROOT / "solutions"),
        str(cache_dir()),
        str(Path(sys.prefix)),
    ]
    for name in ("pytest", "hypothesis", "pluggy"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        secrets.append(str(Path(spec.origin).parent))
    assert set(worker.listing(secrets).values()) == {"FileNotFoundError"}
    names = ["chunklab", "pytest", "_pytest", "hypothesis", "pluggy", "nbformat", "json"]
    assert worker.imports(names) == ["json"]


def test_a_worker_s_cgroups_are_the_root_of_what_it_sees(worker, zygote):
    # The worker is moved into a memory (and cpuset) group of its own where the grader
    # may make one; its cgroup namespace starts there, so every line shows "/".
    assert "memory_per_process" not in zygote.gaps  # the groups this is about were made
    lines = worker.read(["/proc/self/cgroup"])["/proc/self/cgroup"].splitlines()
    assert lines and [line.split(":", 2)[2] for line in lines] == ["/"] * len(lines)


def test_proc_shows_no_path_of_the_grader(worker, zygote, tmp_path):
    grader_paths = {
        str(KIT_ROOT),
        sys.prefix,
        str(zygote.scratch),
        str(tmp_path),
        os.getcwd(),
    }
    own_cgroup = Path("/proc/self/cgroup").read_text()
    grader_paths |= {
        line.split(":", 2)[2] for line in own_cgroup.splitlines() if line.split(":", 2)[2] != "/"
    }
    views = worker.read(
        [
            "/proc/self/mountinfo",
            "/proc/self/cgroup",
            "/proc/self/cmdline",
            "/proc/1/cmdline",
            "/proc/self/environ",
            "/proc/self/maps",
        ]
    )
    # Only the worker itself runs in its /proc.
    assert worker.listing(["/proc"])["/proc"].count("1") == 1
    for name, text in views.items():
        leaked = [path for path in grader_paths if path in text]
        assert leaked == [], name
    # What /proc/self/mountinfo shows is the minimal root: the standard library (its
    # package folders hidden by empty mounts), the interpreter, the shared libraries and
    # locale files it maps or may load, the loader's cache, devices, /proc, /work and /tmp.
    mount_points = {line.split()[4] for line in views["/proc/self/mountinfo"].splitlines()}
    stdlib = sysconfig.get_paths()["stdlib"]
    interpreter = os.path.realpath(sys.executable)

    def allowed(point: str) -> bool:
        library = ".so" in Path(point).name or "/locale/" in point or "/gconv/" in point
        return point.startswith((stdlib, "/dev/")) or point == interpreter or library

    assert "/usr" not in mount_points and "/etc/ld.so.cache" in mount_points
    unlisted = {point for point in mount_points if not allowed(point)}
    assert unlisted == {"/", "/proc", "/work", "/tmp"}
