"""Each lesson notebook run on a real Jupyter kernel, as a student would run it.

One kernel per notebook: the stub notebook, and the notebook with the reference
solution in its exercise cell. The executed notebooks are saved, and the
solution notebook is then graded with `chunklab grade`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import ipykernel  # noqa: F401  (the python3 kernel the notebooks run on; a test extra)
import nbclient
import nbformat
import pytest
from nbformat.notebooknode import NotebookNode

from chunklab.authoring.submission_notebook import submission_notebook
from tests.conftest import KIT_ROOT, LESSON_IDS

SCORE_LINE = re.compile(r"^(\w+) self-check: ([\d.]+) of ([\d.]+) points", re.MULTILINE)
KERNEL_TIMEOUT_S = 120


@dataclass(frozen=True)
class Executed:
    lesson: str
    notebook: NotebookNode
    path: Path

    def cell(self, cell_id: str) -> NotebookNode:
        return next(cell for cell in self.notebook.cells if cell.get("id") == cell_id)

    def text_of(self, cell_id: str) -> str:
        return "".join(
            o.get("text", "") for o in self.cell(cell_id).outputs if o.output_type == "stream"
        )

    def self_check_score(self) -> tuple[float, float]:
        match = SCORE_LINE.search(self.text_of("self-check"))
        assert match, f"no score in the self-check output:\n{self.text_of('self-check')}"
        assert match.group(1) == self.lesson
        return float(match.group(2)), float(match.group(3))

    def errors(self) -> list[str]:
        return [
            f"{cell.get('id')}: {o.ename}: {o.evalue}"
            for cell in self.notebook.cells
            if cell.cell_type == "code"
            for o in cell.outputs
            if o.output_type == "error"
        ]


def runs_this_python(argv: list[str]) -> bool:
    # jupyter_client starts a spec whose argv[0] is "python" with the current interpreter.
    return bool(argv) and argv[0] in {"python", "python3", sys.executable}


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python3` when it runs this interpreter (which has chunklab); else a private spec."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        if runs_this_python(KernelSpecManager().get_kernel_spec("python3").argv):
            yield "python3"
            return
    except NoSuchKernel:
        pass
    data_dir = tmp_path_factory.mktemp("jupyter")
    spec_dir = data_dir / "kernels" / "chunklab-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "chunklab tests",
                "language": "python",
            }
        )
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(data_dir))
        yield "chunklab-test"


def execute(notebook: NotebookNode, kernel: str, folder: Path, lesson: str, name: str) -> Executed:
    client = nbclient.NotebookClient(
        notebook,
        timeout=KERNEL_TIMEOUT_S,
        kernel_name=kernel,
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    path = folder / name
    nbformat.write(notebook, path)
    return Executed(lesson, notebook, path)


@pytest.fixture(scope="module", params=LESSON_IDS)
def stub_run(
    request: pytest.FixtureRequest, kernel_name: str, tmp_path_factory: pytest.TempPathFactory
) -> Executed:
    lesson = request.param
    notebook = nbformat.read(KIT_ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)
    return execute(
        notebook, kernel_name, tmp_path_factory.mktemp(lesson), lesson, f"{lesson}.ipynb"
    )


@pytest.fixture(scope="module", params=LESSON_IDS)
def solution_run(
    request: pytest.FixtureRequest, kernel_name: str, tmp_path_factory: pytest.TempPathFactory
) -> Executed:
    lesson = request.param
    code = (KIT_ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    return execute(
        submission_notebook(lesson, code),
        kernel_name,
        tmp_path_factory.mktemp(lesson),
        lesson,
        f"{lesson}_solution.ipynb",
    )


def test_stub_notebook_runs_without_an_error_and_scores_zero(stub_run: Executed) -> None:
    assert stub_run.errors() == []
    score, max_score = stub_run.self_check_score()
    assert score == 0 and max_score > 0
    assert "NotImplementedError" in stub_run.text_of("self-check")


def test_stub_notebook_draws_the_worked_example(stub_run: Executed) -> None:
    first_demo = stub_run.cell("kit-1")
    assert any("text/html" in o.get("data", {}) for o in first_demo.outputs)
    assert any("text/plain" in o.get("data", {}) for o in first_demo.outputs)


def test_solution_notebook_gets_full_marks_in_its_self_check(solution_run: Executed) -> None:
    assert solution_run.errors() == []
    score, max_score = solution_run.self_check_score()
    assert score == max_score > 0


def test_solution_notebook_draws_the_students_chunks(solution_run: Executed) -> None:
    try_cell = solution_run.cell("kit-3")
    assert any(o.output_type == "display_data" and "text/html" in o.data for o in try_cell.outputs)


def test_an_endless_loop_fails_the_self_check_instead_of_hanging(
    kernel_name: str, tmp_path: Path
) -> None:
    code = "def chunk(text, size, overlap):\n    while True:\n        pass\n"
    notebook = submission_notebook("char_chunk", code)
    # Shorter limits than a student gets, set in the kernel before the self-check runs.
    limits = nbformat.v4.new_code_cell(
        "import chunklab.student.selfcheck as selfcheck\n"
        "from chunklab.sandbox.limits import Limits\n"
        "selfcheck.LIMITS = Limits(call_seconds=0.5)"
    )
    limits["id"] = "limits"
    notebook.cells = [limits, *(c for c in notebook.cells if c.get("id") != "kit-3")]
    run = execute(notebook, kernel_name, tmp_path, "char_chunk", "loop.ipynb")
    assert run.errors() == []
    assert run.self_check_score()[0] == 0
    # The call is stopped by its own limit, well within the ceiling of 0.5 seconds.
    assert "did not finish in time" in run.text_of("self-check")


def test_graded_solution_notebook_scores_full_marks(solution_run: Executed, chunklab) -> None:
    """The executed and saved notebook, graded as an instructor grades it."""
    result = chunklab("grade", "--lesson", solution_run.lesson, solution_run.path)
    assert result.exit_code == 0, result.stderr
    [report] = result.reports
    assert report["status"] == "graded", report["errors"]
    assert report["score"] == report["max_score"] > 0
