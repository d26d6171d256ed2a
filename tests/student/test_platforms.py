"""What works where: the self-check runs where the grading sandbox cannot start.

The sandbox needs Linux (fork, descriptor passing, `prctl`, `resource`); on a
machine without them `Zygote` fails to start or to make a worker, and
`chunklab check` runs the public checks in its own process instead. The
sandbox without namespaces (containers) is proven in test_sandbox_process_mode.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chunklab.commands import check as check_command
from tests.conftest import KIT_ROOT


class NoFork:
    """A zygote on a system with no `os.fork` (Windows): it cannot even start."""

    def __init__(self, *args: Any) -> None:
        raise OSError("os.fork is not available here")


class NoPrctl:
    """A zygote whose workers die at once (macOS: libc has no `prctl`)."""

    def __init__(self, *args: Any) -> None:
        self.closed = False

    def spawn(self) -> Any:
        raise AttributeError("dlsym(RTLD_DEFAULT, prctl): symbol not found")

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("zygote", [NoFork, NoPrctl], ids=["no-fork", "no-prctl"])
@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_check_without_the_sandbox_runs_in_this_process(
    chunklab, monkeypatch: pytest.MonkeyPatch, validate_report, zygote: type, folder: str
) -> None:
    path = KIT_ROOT / folder / "word_chunk.py"
    sandboxed = json.loads(chunklab("check", "word_chunk", path, "--json").stdout)
    monkeypatch.setattr(check_command, "Zygote", zygote)
    result = chunklab("check", "word_chunk", path, "--json")
    report = json.loads(result.stdout)
    validate_report(report)
    assert report["isolation"] == "" and sandboxed["isolation"] in ("namespaces", "process")
    assert result.exit_code == (0 if folder == "solutions" else 1)
    assert [(t["name"], t["outcome"]) for t in report["tests"]] == [
        (t["name"], t["outcome"]) for t in sandboxed["tests"]
    ]
    full = report["max_score"] if folder == "solutions" else 0.0
    assert report["score"] == sandboxed["score"] == full and report["max_score"] > 0
