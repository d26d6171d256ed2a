"""Standard library only: an import of any other module is `import_blocked`, naming the module.

The same policy holds in a worker (grading), in `chunklab check` and in a
notebook's self-check.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from chunklab.sandbox.worker_main import Session
from chunklab.student.selfcheck import check_namespace, kernel_imports
from chunklab.suite_run.in_process import InProcessBackend
from tests.conftest import KIT_ROOT

SOLUTION = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()
# Outside the standard library: some not installed here, some installed (the kit's own).
OUTSIDE = ("numpy", "nltk", "langchain", "pytest", "chunklab", "hypothesis")


def load(*sources: str, local_modules: tuple[str, ...] = ()) -> dict[str, Any]:
    cells = [{"index": i, "label": f"cell {i + 1}", "source": s} for i, s in enumerate(sources)]
    return Session().load(cells, local_modules)


@pytest.mark.parametrize("module", OUTSIDE)
def test_an_outside_module_is_blocked_by_name_and_nothing_runs(module: str) -> None:
    answer = load("ran = True", f"import {module}\n" + SOLUTION)
    assert answer["defined"] == []
    [problem] = answer["problems"]
    assert problem["kind"] == "import_blocked" and problem["modules"] == [module]
    assert problem["message"].startswith(f"your code imports {module}: a module outside")


@pytest.mark.parametrize(
    ("statement", "named"),
    [
        ("from numpy.linalg import norm", "numpy.linalg"),
        ("import os, numpy as np", "numpy"),
        ("try:\n    import numpy\nexcept ImportError:\n    numpy = None", "numpy"),
        ("def helper():\n    import numpy\n    return numpy", "numpy"),
        ("class Pipeline:\n    def run(self):\n        from numpy import array", "numpy"),
        ("import importlib\nnp = importlib.import_module('numpy')", "numpy"),
        ("def helper():\n    return __import__('numpy.linalg')", "numpy.linalg"),
    ],
)
def test_an_import_anywhere_in_the_code_is_blocked(statement: str, named: str) -> None:
    [problem] = load(statement)["problems"]
    assert (problem["kind"], problem["modules"]) == ("import_blocked", [named])


def test_every_outside_module_of_every_cell_is_named_once() -> None:
    [problem] = load("import numpy\nimport nltk", "import numpy.linalg")["problems"]
    assert problem["modules"] == ["numpy", "nltk", "numpy.linalg"]
    assert "numpy, nltk, numpy.linalg: modules outside" in problem["message"]


def test_standard_library_imports_are_fine() -> None:
    answer = load(
        "from __future__ import annotations\nimport os.path\nimport re, collections\n"
        "from xml.etree import ElementTree\nimport __main__\nimport importlib\n"
        "json = importlib.import_module('json')\nname = 'x'\nimport_module = len\n"
        "import_module(name)\n" + SOLUTION
    )
    assert answer["problems"] == [] and "chunk" in answer["defined"]


def test_the_submission_s_own_helper_modules_are_allowed() -> None:
    # A helper module that travels with the submission is named in the load request.
    [problem] = load("import helpers", local_modules=("helpers",))["problems"]
    assert problem["kind"] == "raised" and "ModuleNotFoundError" in problem["message"]
    [problem] = load("from . import helpers")["problems"]
    assert problem["kind"] == "raised"


def test_an_import_decided_at_run_time_meets_the_same_policy() -> None:
    [problem] = load("np = __import__('num' + 'py')")["problems"]
    assert (problem["kind"], problem["modules"]) == ("import_blocked", ["numpy"])
    backend = InProcessBackend()
    backend.request(
        {
            "op": "load",
            "cells": [
                {
                    "index": 0,
                    "label": "c",
                    "source": "def chunk(t, s, o):\n    __import__('nl' + 'tk')",
                }
            ],
        }
    )
    answer = backend.request({"op": "call", "name": "chunk", "args": ["a", 1, 0], "kwargs": {}})
    raised = answer["raised"]
    assert (raised["type"], raised["builtin"]) == ("ImportBlocked", "ModuleNotFoundError")
    assert "your code imports nltk" in raised["message"]


COMPUTED_IMPORTS = (
    "import importlib\nM = importlib.import_module(''.join(['py', 'test']))",
    "from importlib import import_module\nM = import_module('py' + 'test')",
    "import importlib\nM = importlib.__import__('py' + 'test')",
    "import builtins\nM = builtins.__import__('py' + 'test')",
    "import importlib.util\nM = importlib.import_module('py' + 'test')",
    "exec('import ' + 'py' + 'test', {})",
)


@pytest.mark.parametrize("source", COMPUTED_IMPORTS[:-1])
def test_a_computed_import_is_blocked_even_when_caught(source: str) -> None:
    # pytest is imported in this process: only a guard on every way in stops it.
    caught = "try:\n" + "".join(f"    {line}\n" for line in source.splitlines())
    answer = load(caught + "except BaseException:\n    pass\n" + SOLUTION)
    assert [(p["kind"], p["modules"]) for p in answer["problems"]] == [
        ("import_blocked", ["pytest"])
    ]
    assert not any(type(f).__name__ == "ImportGuard" for f in sys.meta_path)


def test_an_import_guard_leaves_the_graders_own_imports_alone() -> None:
    load("import importlib\nimportlib.import_module('json')")
    sys.modules.pop("chunklab.class_out.csv_file", None)
    assert importlib.import_module("chunklab.class_out.csv_file").csv_text


def test_the_standard_library_s_own_imports_are_not_the_submission_s() -> None:
    # json imports its own modules lazily; only the submission's code is watched.
    answer = load("import json\nvalue = json.dumps({'a': [1]})")
    assert answer["problems"] == []


# --- grading, check and the notebook self-check agree -----------------------------------------


def blocked_file(tmp_path: Path) -> Path:
    path = tmp_path / "char_chunk.py"
    path.write_text("import numpy as np\n" + SOLUTION)
    return path


def test_grading_reports_import_blocked(chunklab, tmp_path: Path, validate_report) -> None:
    result = chunklab("grade", blocked_file(tmp_path))
    [report] = result.reports
    validate_report(report)
    assert report["status"] == "error" and report["score"] == 0
    assert report["errors"][0]["kind"] == "import_blocked"
    assert "your code imports numpy" in report["errors"][0]["message"]


@pytest.mark.parametrize(
    ("where", "source"),
    [
        ("grade", COMPUTED_IMPORTS[0]),
        ("--in-process", COMPUTED_IMPORTS[0]),
        # In a worker even code run with the real builtins meets the guard.
        ("grade", COMPUTED_IMPORTS[-1]),
    ],
)
def test_a_computed_import_is_blocked_in_grading_and_in_process(
    chunklab, tmp_path: Path, where: str, source: str
) -> None:
    path = tmp_path / "char_chunk.py"
    path.write_text(
        "try:\n"
        + "".join(f"    {line}\n" for line in source.splitlines())
        + "except BaseException as error:\n    caught = error\n"
        + SOLUTION
    )
    args = ["grade", path] if where == "grade" else ["check", "char_chunk", path, "--json", where]
    result = chunklab(*args)
    report = result.reports[0] if where == "grade" else json.loads(result.stdout)
    assert report["status"] == "error"
    assert [e["kind"] for e in report["errors"]] == ["import_blocked"]
    assert "your code imports pytest" in report["errors"][0]["message"]


@pytest.mark.parametrize("where", ["--in-process", None])
def test_check_reports_import_blocked(chunklab, tmp_path: Path, where: str | None) -> None:
    args = [a for a in ("check", "char_chunk", blocked_file(tmp_path), "--json", where) if a]
    result = chunklab(*args)
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["status"] == "error" and report["errors"][0]["kind"] == "import_blocked"
    assert "your code imports numpy" in report["errors"][0]["message"]


def kernel(tmp_path: Path, *cells: str) -> dict[str, Any]:
    """A kernel's globals after running `cells`, each from a file as IPython keeps it."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for number, source in enumerate(cells):
        path = tmp_path / f"cell{number}.py"
        path.write_text(source)
        exec(compile(source, str(path), "exec"), namespace)
    return namespace


def test_the_notebook_self_check_finds_imports_in_the_cell_that_defines_the_function(
    tmp_path: Path,
) -> None:
    namespace = kernel(tmp_path, "import pytest\n" + SOLUTION)
    assert kernel_imports(namespace) == ["pytest"]
    report = check_namespace("char_chunk", namespace)
    assert report.status == "error" and report.max_score > 0
    assert report.errors[0].kind == "import_blocked"
    assert "your code imports pytest" in report.errors[0].message


def test_the_notebook_self_check_finds_modules_from_other_cells_and_inside_functions(
    tmp_path: Path,
) -> None:
    namespace = kernel(
        tmp_path,
        "import pytest as pt",
        "def chunk(text, size, overlap):\n    pt.fail\n    import hypothesis\n    return []",
    )
    assert kernel_imports(namespace) == ["hypothesis", "pytest"]


def test_the_notebook_self_check_looks_into_methods_of_every_kind(tmp_path: Path) -> None:
    namespace = kernel(
        tmp_path,
        "class ChunkingPipeline:\n"
        "    @staticmethod\n    def a():\n        import numpy\n"
        "    @classmethod\n    def b(cls):\n        import nltk\n"
        "    @property\n    def c(self):\n        import pytest\n",
    )
    namespace["odd"] = type("Odd", (), {"__getattr__": lambda self, name: 1 / 0})()
    assert kernel_imports(namespace) == ["numpy", "nltk", "pytest"]


def test_the_notebook_self_check_ignores_the_kit_s_own_cells(tmp_path: Path) -> None:
    namespace = kernel(tmp_path, "from chunklab.student.showing import show_chunks", SOLUTION)
    assert kernel_imports(namespace) == []
    assert check_namespace("char_chunk", namespace).status == "graded"


@pytest.mark.parametrize(
    "path",
    [
        *(KIT_ROOT / "exercises").glob("*.py"),
        *(KIT_ROOT / "notebooks").glob("*.ipynb"),
        KIT_ROOT / "graders" / "chunklab" / "authoring" / "student_readme.md",
    ],
    ids=lambda path: path.name,
)
def test_the_policy_is_stated_to_students(path: Path) -> None:
    text = " ".join(path.read_text().replace('\\n"', "").replace('"', "").split())
    assert "standard library" in text and "numpy, nltk" in text
    assert "numpy, nltk" in text
