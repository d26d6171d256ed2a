"""The lesson notebooks: built from one source, committed up to date, stating every rule."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import nbformat
import pytest

from chunklab.authoring.build_notebooks import build_notebook, exercise_source, main
from chunklab.authoring.rule_list import literal
from chunklab.authoring.submission_notebook import submission_notebook, write_submission_notebook
from chunklab.lessons import LESSONS, get_lesson
from chunklab.reading.source import EXERCISE_CELL_TAG, KIT_CELL_TAG
from chunklab.suite_run.suite_contents import suite_contents
from tests.conftest import KIT_ROOT, LESSON_IDS

SECTIONS = (
    "## The idea",
    "## Words to know",
    "## How it works",
    "## A worked example",
    "## The rules",
    "## Your turn",
)


def cell_view(notebook: nbformat.NotebookNode) -> list[tuple[str, str, str, dict]]:
    return [(c.cell_type, c.get("id", ""), c.source, dict(c.metadata)) for c in notebook.cells]


def tags(cell: nbformat.NotebookNode) -> list[str]:
    return cell.metadata.get("tags", [])


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_committed_notebook_is_what_its_sources_build(lesson_id: str) -> None:
    path = KIT_ROOT / "notebooks" / f"{lesson_id}.ipynb"
    committed = nbformat.read(path, as_version=4)
    fresh = build_notebook(get_lesson(lesson_id))
    advice = f"{path.name} is out of date: run python -m chunklab.authoring.build_notebooks"
    assert committed.metadata == fresh.metadata, advice
    old, new = cell_view(committed), cell_view(fresh)
    differ = [n[1] for o, n in zip(old, new, strict=False) if o != n]
    assert not differ and len(old) == len(new), f"{advice} (cells that differ: {differ})"
    for cell in committed.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "commit without outputs"


def test_check_mode_reports_up_to_date_notebooks() -> None:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["--check"]) == 0, out.getvalue()


def test_notebooks_are_left_alone_by_the_linter_and_formatter() -> None:
    """So formatting the repository never makes a committed notebook out of date."""
    for command in (["format", "--check"], ["check"]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "notebooks"],
            cwd=KIT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_every_rule_a_grader_checks_is_stated_in_the_notebook(lesson_id: str) -> None:
    rules_cell = next(c for c in build_notebook(get_lesson(lesson_id)).cells if c.id == "rules")
    rules = suite_contents(get_lesson(lesson_id)).rules()
    assert rules, "the suite states no rules"
    for rule in rules:
        assert f"- {literal(rule.text)}" in rules_cell.source
    assert any(r.public for r in rules) and "*(self-check)*" in rules_cell.source


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_notebook_parts_come_in_the_lesson_order(lesson_id: str) -> None:
    notebook = build_notebook(get_lesson(lesson_id))
    cells = notebook.cells

    def first(predicate) -> int:
        return next(i for i, cell in enumerate(cells) if predicate(cell))

    places = [
        first(lambda c, h=heading: c.cell_type == "markdown" and h in c.source)
        for heading in SECTIONS
    ]
    exercise = first(lambda c: EXERCISE_CELL_TAG in tags(c))
    self_check = first(lambda c: "self_check(" in c.source)
    hints = [i for i, c in enumerate(cells) if c.source.startswith("<details>")]
    assert places == sorted(places)
    assert places[-1] < exercise < self_check < min(hints)
    assert len(hints) >= 3
    assert all("<summary>" in cells[i].source for i in hints)
    assert notebook.metadata["chunklab"] == {"lesson": lesson_id}
    assert notebook.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_every_code_cell_but_the_exercise_is_the_kits(lesson_id: str) -> None:
    code = [c for c in build_notebook(get_lesson(lesson_id)).cells if c.cell_type == "code"]
    exercise = [c for c in code if EXERCISE_CELL_TAG in tags(c)]
    assert len(exercise) == 1
    assert all(KIT_CELL_TAG in tags(c) for c in code if c is not exercise[0])
    self_check = next(c for c in code if "self_check(" in c.source)
    assert f'self_check("{lesson_id}", globals())' in self_check.source


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_exercise_cell_is_the_stub(lesson_id: str) -> None:
    lesson = get_lesson(lesson_id)
    stub = (KIT_ROOT / "exercises" / lesson.file_name).read_text()
    exercise = next(c for c in build_notebook(lesson).cells if EXERCISE_CELL_TAG in tags(c))
    assert exercise.source == exercise_source(stub)
    kind = "class" if lesson.entry_kind == "class" else "def"
    assert f"{kind} {lesson.entry_point}" in exercise.source


def test_exercise_source_drops_what_only_a_file_needs() -> None:
    stub = (
        '"""The lesson.\n\nWrite it."""\n\nfrom __future__ import annotations\n\n'
        "import re\n\n\ndef chunk(text):\n    raise NotImplementedError\n\n\n"
        'if __name__ == "__main__":\n    print(chunk("x"))\n'
    )
    assert exercise_source(stub) == (
        "# The lesson.\n#\n# Write it.\n\n\nimport re\n\n\n"
        "def chunk(text):\n    raise NotImplementedError"
    )


def test_exercise_source_keeps_a_plain_stub_as_it_is() -> None:
    stub = "def solve(text, size, overlap):\n    raise NotImplementedError\n"
    assert exercise_source(stub) == stub.rstrip("\n")


def test_submission_notebook_changes_only_the_exercise_cell(tmp_path) -> None:
    lesson = LESSONS["word_chunk"]
    code = "def solve(text, size, overlap):\n    return []"
    built = cell_view(build_notebook(lesson))
    path = write_submission_notebook(lesson.id, code, tmp_path / "sub" / "w.ipynb")
    written = cell_view(nbformat.read(path, as_version=4))
    changed = [i for i, (a, b) in enumerate(zip(built, written, strict=True)) if a != b]
    assert len(changed) == 1
    assert written[changed[0]][2] == code
    assert EXERCISE_CELL_TAG in written[changed[0]][3]["tags"]
    assert submission_notebook(lesson.id, code).metadata["chunklab"] == {"lesson": lesson.id}
