"""The lesson registry: lesson folders are the one list of lessons; a new folder is a lesson."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from chunklab.errors import KitLayoutError
from chunklab.lessons import LESSONS, discover
from chunklab.report_out.report_schema import report_schema
from tests.conftest import KIT_ROOT
from tests.kit_copy import copy_kit, run_chunklab, run_module

DECLARATION = {"title": "Pairs", "entry_point": "pairs", "entry_kind": "function", "order": 9}


def test_the_registry_reads_every_lesson_folder_in_declared_order() -> None:
    suites = KIT_ROOT / "graders" / "chunklab" / "suites"
    declared = {p.parent.name: json.loads(p.read_text()) for p in suites.glob("*/lesson.json")}
    assert list(LESSONS) == sorted(declared, key=lambda name: declared[name]["order"])
    assert [(lesson.entry_point, lesson.entry_kind) for lesson in LESSONS.values()] == [
        (declared[name]["entry_point"], declared[name]["entry_kind"]) for name in LESSONS
    ]
    # The kit's own lessons are among them, in their order.
    ours = [name for name in LESSONS if name in ("char_chunk", "word_chunk", "chunking_pipeline")]
    assert ours == ["char_chunk", "word_chunk", "chunking_pipeline"]


def test_the_report_schema_lists_the_registry_and_refuses_other_lessons() -> None:
    schema = report_schema()
    assert schema["properties"]["lesson"]["enum"] == [*LESSONS, None]
    report = {"lesson": "no_such_lesson"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report["lesson"], schema["properties"]["lesson"])


@pytest.mark.parametrize(
    "declaration",
    [
        {**DECLARATION, "entry_kind": "module"},
        {key: value for key, value in DECLARATION.items() if key != "entry_point"},
        "not an object",
    ],
)
def test_a_broken_declaration_is_a_kit_layout_error(tmp_path: Path, declaration) -> None:
    (tmp_path / "pairs").mkdir()
    (tmp_path / "pairs" / "lesson.json").write_text(json.dumps(declaration))
    with pytest.raises(KitLayoutError, match="lesson.json"):
        discover(tmp_path)


# A whole lesson, written as the README's "Adding a lesson" says.
NEW_LESSON = {
    "graders/chunklab/suites/pairs/__init__.py": "",
    "graders/chunklab/suites/pairs/lesson.json": json.dumps(DECLARATION, indent=2) + "\n",
    "graders/chunklab/suites/pairs/rules.md": """\
# Pairs

`pairs(text)` cuts a text into pieces of two characters.

<!-- rules
The rules: *
-->

<!-- exercise -->

<!-- self-check -->

<!-- hints -->
### Where to begin
Take `text[i:i + 2]` for every even `i`.
""",
    "graders/chunklab/suites/pairs/test_visible.py": """\
import pytest

from chunklab.suites.checks import expect_result

pytestmark = pytest.mark.visibility("visible")


@pytest.mark.rule("The text is cut into pieces of two characters.")
@pytest.mark.points(1)
def test_pieces_of_two(submission):
    expect_result(submission.pairs, ("abcd",), ["ab", "cd"])
""",
    "graders/chunklab/suites/pairs/test_hidden.py": """\
import pytest

from chunklab.suites.checks import expect_result

pytestmark = pytest.mark.visibility("hidden")


@pytest.mark.rule("A last single character is a piece of its own.")
@pytest.mark.points(2)
def test_odd_length(submission):
    expect_result(submission.pairs, ("hidden-abc",), ["hi", "dd", "en", "-a", "bc"])
    expect_result(submission.pairs, ("abc",), ["ab", "c"])
""",
    "exercises/pairs.py": '''\
def pairs(text: str) -> list[str]:
    """Cut `text` into pieces of two characters; a last single one is a piece of its own."""
    raise NotImplementedError("write pairs()")
''',
    "solutions/pairs.py": '''\
def pairs(text: str) -> list[str]:
    """Cut `text` into pieces of two characters; a last single one is a piece of its own."""
    return [text[i : i + 2] for i in range(0, len(text), 2)]
''',
    "solutions/mistakes/pairs/drops_the_last_character.py": """\
# Mistake: a last single character is left out
def pairs(text):
    return [text[i : i + 2] for i in range(0, len(text) - 1, 2)]
""",
}


def test_a_lesson_folder_stub_and_reference_make_a_lesson(tmp_path: Path) -> None:
    """validate, grade, check and release take the new lesson with nothing else edited."""
    kit = copy_kit(tmp_path / "kit")
    for name, text in NEW_LESSON.items():
        (kit / name).parent.mkdir(parents=True, exist_ok=True)
        (kit / name).write_text(text)
    built = run_module(kit, "chunklab.authoring.build_notebooks")
    assert built.returncode == 0, built.stderr
    assert (kit / "notebooks" / "pairs.ipynb").is_file()

    validated = run_chunklab(kit, "validate", "pairs")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert "pairs: 1/1 known mistakes caught" in validated.stdout

    graded = run_chunklab(kit, "grade", "solutions/pairs.py", "solutions/mistakes/pairs")
    assert graded.returncode == 0, graded.stderr
    reports = [json.loads(line) for line in graded.stdout.splitlines()]
    assert [(r["lesson"], r["score"], r["max_score"]) for r in reports] == [
        ("pairs", 3.0, 3.0),
        ("pairs", 1.0, 3.0),
    ]

    checked = run_chunklab(kit, "check", "pairs", "exercises/pairs.py", "--json")
    report = json.loads(checked.stdout)
    assert checked.returncode == 1
    assert (report["lesson"], report["score"], report["max_score"]) == ("pairs", 0.0, 1.0)

    released = run_chunklab(kit, "release", tmp_path / "bundle")
    assert released.returncode == 0, released.stderr
    shipped = tmp_path / "bundle" / "graders" / "chunklab" / "suites" / "pairs"
    assert sorted(p.name for p in shipped.iterdir()) == [
        "__init__.py",
        "lesson.json",
        "rules.md",
        "test_visible.py",
    ]
    assert (tmp_path / "bundle" / "exercises" / "pairs.py").is_file()
    assert (tmp_path / "bundle" / "notebooks" / "pairs.ipynb").is_file()
