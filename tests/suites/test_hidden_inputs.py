"""The hidden inputs are data kept with the kit: up to date, checked before use, never drawn."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chunklab.authoring.build_hidden_inputs import (
    draw_cases,
    draws_of,
    hidden_inputs_data,
    hidden_inputs_text,
    strategies_digest,
    strategies_of,
)
from chunklab.lessons import LESSONS, get_lesson
from chunklab.suites.kept_inputs import (
    INPUTS_FILE,
    HiddenInputsError,
    hidden_inputs,
    read_inputs_file,
)
from tests.conftest import KIT_ROOT, LESSON_IDS
from tests.kit_copy import copy_kit, run_module

WITH_INPUTS = [lesson for lesson in LESSON_IDS if strategies_of(get_lesson(lesson))]
REBUILD = "run python -m chunklab.authoring.build_hidden_inputs"


def test_every_lesson_keeps_its_random_inputs_as_data():
    assert WITH_INPUTS == list(LESSON_IDS)
    for lesson in WITH_INPUTS:
        assert (LESSONS[lesson].folder / INPUTS_FILE).is_file()


@pytest.mark.parametrize("lesson", WITH_INPUTS)
def test_the_kept_inputs_are_drawn_from_todays_strategies_and_counts(lesson):
    module = strategies_of(get_lesson(lesson))
    assert module is not None
    data = read_inputs_file(LESSONS[lesson].folder / INPUTS_FILE)
    assert data["drawn_from"] == strategies_digest(module), REBUILD
    counts = {name: count for name, (_, count) in draws_of(module).items()}
    assert {name: len(cases) for name, cases in data["inputs"].items()} == counts, REBUILD


def test_drawing_again_gives_the_kept_inputs_with_the_hypothesis_that_drew_them():
    import hypothesis

    module = strategies_of(get_lesson("chunking_pipeline"))
    assert module is not None
    path = LESSONS["chunking_pipeline"].folder / INPUTS_FILE
    kept = read_inputs_file(path)
    # Another Hypothesis may draw other inputs; the kept ones stay what grading uses.
    if kept["hypothesis"] == hypothesis.__version__:
        again = {name: draw_cases(s(), count) for name, (s, count) in draws_of(module).items()}
        assert again == kept["inputs"], REBUILD
    # The file is written as the authoring command writes it.
    assert path.read_text(encoding="utf-8") == hidden_inputs_text(kept)


def test_the_authoring_command_writes_what_grading_reads(tmp_path, monkeypatch):
    module = strategies_of(get_lesson("chunking_pipeline"))
    assert module is not None
    strategy = draws_of(module)["texts_and_settings"][0]
    monkeypatch.setattr(module, "DRAWS", {"texts_and_settings": (strategy, 4)})
    folder = tmp_path / "chunking_pipeline"
    folder.mkdir()
    (folder / INPUTS_FILE).write_text(hidden_inputs_text(hidden_inputs_data(module)))
    cases = hidden_inputs(str(folder / "test_hidden.py"), "texts_and_settings")
    assert len(cases) == 4
    # Tuples again, as the strategy drew them: (text, (chunk_size, overlap)).
    assert all(type(case) is tuple and type(case[1]) is tuple for case in cases)
    assert all(type(text) is str and 0 <= overlap < size for text, (size, overlap) in cases)


def kept_copy(tmp_path: Path) -> Path:
    path = tmp_path / INPUTS_FILE
    path.write_bytes((LESSONS["char_chunk"].folder / INPUTS_FILE).read_bytes())
    return path


@pytest.mark.parametrize("damage", ["edited", "truncated", "digest removed", "missing"])
def test_a_damaged_inputs_file_is_never_graded_with(tmp_path, damage):
    path = kept_copy(tmp_path)
    data = json.loads(path.read_text())
    if damage == "edited":
        # Inputs an attacker would prefer: every case the same easy one.
        first = data["inputs"]["valid_calls"][0]
        data["inputs"]["valid_calls"] = [first] * len(data["inputs"]["valid_calls"])
        path.write_text(json.dumps(data))
    elif damage == "truncated":
        path.write_text(path.read_text()[:500])
    elif damage == "digest removed":
        del data["digest"]
        path.write_text(json.dumps(data))
    else:
        path.unlink()
    with pytest.raises(HiddenInputsError, match="build_hidden_inputs"):
        hidden_inputs(str(tmp_path / "test_hidden.py"), "valid_calls")


def test_an_edited_inputs_file_stops_grading_with_its_cause(tmp_path):
    kit = copy_kit(tmp_path / "kit")
    path = kit / "graders" / "chunklab" / "suites" / "char_chunk" / INPUTS_FILE
    data = json.loads(path.read_text())
    data["inputs"]["invalid_calls"] = []
    path.write_text(json.dumps(data))
    done = run_module(kit, "chunklab", "grade", "--jsonl", "solutions/char_chunk.py", timeout=120)
    (report,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert report["status"] == "error" and report["score"] == 0
    (error,) = report["errors"]
    assert error["kind"] == "kit_layout"
    assert "do not match their digest" in error["message"] and INPUTS_FILE in error["message"]


# Run before the kit is imported: Hypothesis can be neither imported nor found installed.
NO_HYPOTHESIS = """
import importlib.metadata as metadata, sys
for name in ("hypothesis", "_hypothesis_pytestplugin", "_hypothesis_globals"):
    sys.modules[name] = None
found = metadata.distribution
def distribution(name):
    if name.lower() == "hypothesis":
        raise metadata.PackageNotFoundError(name)
    return found(name)
metadata.distribution = distribution
from chunklab.cli import main
code = main(sys.argv[1:])
print(sorted(m for m in sys.modules if "hypothesis" in m and sys.modules[m]), file=sys.stderr)
sys.exit(code)
"""


def test_grading_works_with_hypothesis_not_installed(tmp_path):
    references = [KIT_ROOT / "solutions" / f"{lesson}.py" for lesson in LESSON_IDS]
    mistake = KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "no_validation.py"
    done = subprocess.run(
        [sys.executable, "-c", NO_HYPOTHESIS, "grade", "--jsonl", *map(str, references), mistake],
        # A cache folder of its own: nothing drawn by an earlier run can stand in.
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)},
        cwd=KIT_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.splitlines()[-1] == "[]"
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in reports] == ["graded"] * 4
    assert [r["score"] == r["max_score"] > 0 for r in reports] == [True, True, True, False]
    hidden = [t["outcome"] for r in reports[:3] for t in r["tests"] if t["visibility"] == "hidden"]
    assert hidden and set(hidden) == {"passed"}


def test_hypothesis_is_a_test_dependency_only():
    pyproject = (KIT_ROOT / "pyproject.toml").read_text()

    def listed(name: str) -> list[str]:
        block = re.search(rf"^{name} = \[(.*?)^\]", pyproject, re.MULTILINE | re.DOTALL)
        assert block is not None
        return re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE)

    assert not [d for d in listed("dependencies") if d.startswith("hypothesis")]
    assert [d for d in listed("test") if d.startswith("hypothesis")]


def test_importing_the_hidden_suites_does_not_import_hypothesis():
    imports = "; ".join(f"import chunklab.suites.{lesson}.test_hidden" for lesson in LESSON_IDS)
    shown = "print(sorted(m for m in sys.modules if m.partition('.')[0] == 'hypothesis'))"
    run = subprocess.run(
        [sys.executable, "-c", f"import sys; {imports}; {shown}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout == "[]\n"


MARKER = "chunklab-marker-\u03a9"


def marked_texts() -> object:
    from hypothesis import strategies as st

    return st.lists(st.text(max_size=30), min_size=5, max_size=5)


def hypothesis_alone(count: int) -> list:
    """What Hypothesis draws with its usual settings and none of the kit's care."""
    from hypothesis import HealthCheck, Phase, given, settings

    drawn: list = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(marked_texts())
    def collect(case: list) -> None:
        drawn.append(case)

    collect()
    return drawn


def test_drawn_inputs_do_not_depend_on_the_local_modules_loaded(tmp_path, monkeypatch):
    before = draw_cases(marked_texts(), 300)
    alone_before = hypothesis_alone(300)
    # A local module with constants of its own, as an editable install of the kit.
    folder = tmp_path / "local"
    folder.mkdir()
    (folder / "marker_module.py").write_text(
        "".join(f"NAME_{k} = {MARKER + str(k)!r}\n" for k in range(50))
    )
    monkeypatch.syspath_prepend(str(folder))
    import marker_module  # noqa: F401

    # Hypothesis alone draws otherwise once the module is loaded ...
    assert hypothesis_alone(300) != alone_before
    # ... the kit's draws stay what they were.
    assert draw_cases(marked_texts(), 300) == before
    monkeypatch.delitem(sys.modules, "marker_module")
