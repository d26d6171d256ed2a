"""A self-check in this process answers as a worker does: the same outcomes and feedback.

Each file below does something a worker and this process could treat
differently; `check --in-process` must give the same public outcomes, with
the same feedback and warnings, as the same checks run in a worker (which is
how grading runs its visible tests: the same function, hidden tests left out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunklab.commands.check import check_source
from chunklab.reading.read import read_submission
from chunklab.sandbox.limits import Limits
from tests.conftest import KIT_ROOT

REFERENCE = (KIT_ROOT / "solutions" / "char_chunk.py").read_text().replace("def chunk(", "def ref(")
CALL = "ref(text, size, overlap)"

BEHAVIOURS = {
    "tuple_answer": f"def chunk(text, size, overlap):\n    return tuple({CALL})\n",
    "always_equal": (
        "class AlwaysEqual(list):\n    def __eq__(self, other):\n        return True\n"
        "def chunk(text, size, overlap):\n    return AlwaysEqual()\n"
    ),
    "empty_list": "def chunk(text, size, overlap):\n    return []\n",
    "prints_a_lot": f"def chunk(text, size, overlap):\n    print('x' * 70000)\n    return {CALL}\n",
    "exits_in_a_call": (
        f"import sys\ndef chunk(text, size, overlap):\n    if not text:\n        sys.exit(3)\n"
        f"    return {CALL}\n"
    ),
    "calls_exit_on_load": f"def chunk(text, size, overlap):\n    return {CALL}\nexit()\n",
    "reads_input": f"def chunk(text, size, overlap):\n    input()\n    return {CALL}\n",
    "stack_room": (
        "import sys\ndef chunk(text, size, overlap):\n    frame, depth = sys._getframe(), 0\n"
        "    while frame:\n        frame, depth = frame.f_back, depth + 1\n"
        "    return [str(sys.getrecursionlimit() - depth)]\n"
    ),
    "own_recursion_limit": (
        "import sys\nsys.setrecursionlimit(60)\n"
        "def down(n):\n    return 0 if n == 0 else down(n - 1)\n"
        f"def chunk(text, size, overlap):\n    down(55)\n    return {CALL}\n"
    ),
    "loops_on_second_call": (
        "calls = []\ndef chunk(text, size, overlap):\n    calls.append(1)\n"
        f"    while len(calls) == 2:\n        pass\n    return {CALL}\n"
    ),
    "raises_its_own_error": (
        "class Oops(ValueError):\n    pass\n"
        f"def chunk(text, size, overlap):\n    if size > 3:\n        raise Oops('no')\n"
        f"    return {CALL}\n"
    ),
    "imports_at_run_time": "def chunk(text, size, overlap):\n    return __import__('numpy')\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("class")
    for name, code in BEHAVIOURS.items():
        (folder / f"{name}_char_chunk.py").write_text(REFERENCE + "\n" + code)
    return folder


@pytest.fixture(scope="module")
def sandboxed(folder: Path) -> dict[str, dict[str, Any]]:
    """Each file's public checks as grading runs its visible tests: in a worker."""
    limits = Limits(call_seconds=0.5)
    return {
        name: check_source(
            read_submission(folder / f"{name}_char_chunk.py", "char_chunk"), limits
        ).to_json()
        for name in BEHAVIOURS
    }


def public(report: dict[str, Any]) -> tuple:
    tests = [
        (t["name"], t["outcome"], t["feedback"])
        for t in report["tests"]
        if t["visibility"] == "visible"
    ]
    return report["status"], tests, [w["kind"] for w in report["warnings"]]


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_check_in_process_answers_as_a_worker_does(
    chunklab, folder: Path, sandboxed: dict[str, dict[str, Any]], validate_report, behaviour: str
) -> None:
    path = folder / f"{behaviour}_char_chunk.py"
    result = chunklab(
        "check", "char_chunk", path, "--in-process", "--call-seconds", "0.5", "--json"
    )
    mine = json.loads(result.stdout)
    validate_report(mine)
    assert sandboxed[behaviour]["isolation"] in ("namespaces", "process")
    assert public(mine) == public(sandboxed[behaviour])


def test_the_behaviours_differ_from_the_reference(sandboxed: dict[str, dict[str, Any]]) -> None:
    """Each file does meet what it is written for (so the comparison above means something)."""
    assert sandboxed["calls_exit_on_load"]["warnings"][0]["kind"] == "raised_on_load"
    assert any(w["kind"] == "output_cut" for w in sandboxed["prints_a_lot"]["warnings"])
    assert {t["outcome"] for t in sandboxed["loops_on_second_call"]["tests"]} >= {"timeout"}
    feedback = " ".join(t["feedback"] for t in sandboxed["reads_input"]["tests"])
    assert "EOFError" in feedback
    # A BaseException is named as the submission raised it, not as the kit carries it.
    feedback = " ".join(t["feedback"] for t in sandboxed["exits_in_a_call"]["tests"])
    assert "It raised SystemExit: '3'" in feedback and "SubmissionRaised" not in feedback
    feedback = " ".join(t["feedback"] for t in sandboxed["own_recursion_limit"]["tests"])
    assert "RecursionError" in feedback
    assert sandboxed["tuple_answer"]["score"] < sandboxed["tuple_answer"]["max_score"]
    # A list subclass is a list: what it holds is judged, never its own __eq__.
    always_equal, empty = sandboxed["always_equal"], sandboxed["empty_list"]
    assert always_equal["score"] == empty["score"] < empty["max_score"] / 4
    assert [t["outcome"] for t in always_equal["tests"]] == [t["outcome"] for t in empty["tests"]]


def test_code_checked_in_the_grading_process_sees_no_sign_of_the_test_running_it(
    chunklab, monkeypatch, tmp_path
) -> None:
    # In a self-check without a sandbox the code runs in the grading process: it must
    # find there what a worker shows it, not pytest's name for the test under way.
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)  # this suite's own
    path = tmp_path / "char_chunk.py"
    path.write_text(
        REFERENCE + "\nimport os\n"
        "def chunk(text, size, overlap):\n"
        "    if os.environ.get('PYTEST_CURRENT_TEST'):\n"
        "        return []\n"
        f"    return {CALL}\n"
    )
    here = json.loads(chunklab("check", "char_chunk", path, "--in-process", "--json").stdout)
    sandboxed = json.loads(chunklab("check", "char_chunk", path, "--json").stdout)
    assert here["score"] == sandboxed["score"] == here["max_score"]
