"""The pieces a notebook is built from: the lesson text format, suite rules, the rule list."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chunklab.authoring.lesson_source import (
    Exercise,
    Hint,
    KitCode,
    Markdown,
    RuleGroup,
    Rules,
    SelfCheck,
    check_parts,
    parse_lesson_text,
    read_lesson_text,
)
from chunklab.authoring.rule_list import LEFTOVER_TITLE, grouped, literal, rules_markdown
from chunklab.errors import KitLayoutError
from chunklab.lessons import LESSONS
from chunklab.sandbox.fitted_limits import LOAD_SECONDS
from chunklab.sandbox.limits import Limits
from chunklab.suite_run import pytest_run
from chunklab.suite_run.suite_contents import SuiteRule, suite_contents
from tests.conftest import LESSON_IDS

LESSON = """\
# Title

Some prose.

<!-- cell -->
## Next

```python kit
print("demo")
```

<!-- rules
Bad settings: ValueError | invalid
Everything else: *
-->

<!-- exercise -->

<!-- self-check -->

## Hints

<!-- hints -->
Open them one by one.

### First
A nudge.

### Second
More.
"""


def test_lesson_text_becomes_parts_in_order() -> None:
    parts = parse_lesson_text(LESSON, "lesson.md")
    assert parts == (
        Markdown("# Title\n\nSome prose."),
        Markdown("## Next"),
        KitCode('print("demo")'),
        Rules(
            (RuleGroup("Bad settings", ("valueerror", "invalid")), RuleGroup("Everything else", ()))
        ),
        Exercise(),
        SelfCheck(),
        Markdown("## Hints"),
        Markdown("Open them one by one."),
        Hint("First", "A nudge."),
        Hint("Second", "More."),
    )
    check_parts(parts, "lesson.md")


def test_a_fence_that_never_closes_is_named() -> None:
    with pytest.raises(KitLayoutError, match="never closed"):
        parse_lesson_text("```python kit\nprint(1)\n", "x.md")


def test_a_bad_group_line_is_named() -> None:
    with pytest.raises(KitLayoutError, match="Title: words"):
        parse_lesson_text("<!-- rules\nno colon here\n-->\n", "x.md")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("<!-- exercise -->\n<!-- self-check -->\n### h\nx", "one Rules marker"),
        (
            "<!-- rules -->\n<!-- self-check -->\n<!-- exercise -->\n<!-- hints -->\n### h\nx",
            "order",
        ),
        ("<!-- rules -->\n<!-- exercise -->\n<!-- self-check -->\n", "no hints"),
    ],
)
def test_missing_or_misplaced_markers_are_refused(text: str, problem: str) -> None:
    with pytest.raises(KitLayoutError, match=problem):
        check_parts(parse_lesson_text(text, "x.md"), "x.md")


@pytest.mark.parametrize("lesson_id", LESSON_IDS)
def test_every_lesson_text_is_complete(lesson_id: str) -> None:
    parts = read_lesson_text(lesson_id)
    assert any(isinstance(p, KitCode) for p in parts)
    assert sum(isinstance(p, Hint) for p in parts) >= 3


SUITE = """\
import pytest

pytestmark = [pytest.mark.visibility("hidden"), pytest.mark.points(1)]


@pytest.mark.rule("Module   default\\n  visibility.")
@pytest.mark.points(2)
def test_a(submission):
    pass


@pytest.mark.rule("Own visibility.")
@pytest.mark.visibility("visible")
def test_b(submission):
    pass


@pytest.mark.visibility("visible")
class TestGroup:
    @pytest.mark.rule("From the class.")
    def test_c(self, submission):
        pass


@pytest.mark.parametrize("x", [
    pytest.param(1, marks=pytest.mark.rule("From a param.")),
])
def test_d(submission, x):
    pass
"""


def suite_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str):
    """What the kit finds in a suite folder holding one test file."""
    folder = tmp_path / "suites" / "lesson"
    folder.mkdir(parents=True)
    (folder / f"{name}.py").write_text(text)
    (folder.parent / "pytest.ini").write_text("[pytest]\n")
    monkeypatch.setattr(pytest_run, "suite_dir", lambda lesson: folder)
    monkeypatch.setattr(sys, "path", [*sys.path])  # pytest puts the folder on it
    return suite_contents(LESSONS["char_chunk"])


def test_rules_are_read_with_the_markers_that_apply(tmp_path, monkeypatch) -> None:
    found = suite_of(tmp_path, monkeypatch, "test_marked_suite", SUITE)
    assert found.rules() == [
        SuiteRule("Module default visibility.", False),
        SuiteRule("Own visibility.", True),
        SuiteRule("From the class.", True),
        SuiteRule("From a param.", False),
    ]
    assert [test.name for test in found.tests] == ["test_a", "test_b", "TestGroup", "test_d"]
    assert (found.max_score, found.public_max_score) == (5.0, 2.0)


def test_a_rule_that_is_not_a_string_is_refused(tmp_path, monkeypatch) -> None:
    text = "import pytest\n\n@pytest.mark.rule(3)\n@pytest.mark.points(1)\n"
    text += '@pytest.mark.visibility("hidden")\ndef test_a():\n    pass\n'
    with pytest.raises(KitLayoutError, match="must hold a string"):
        suite_of(tmp_path, monkeypatch, "test_number_rule_suite", text)


def test_rules_go_to_the_first_group_that_takes_them() -> None:
    rules = [
        SuiteRule("size 0 raises ValueError.", True),
        SuiteRule("Stop at the end.", False),
        SuiteRule("Odd one.", False),
    ]
    groups = (RuleGroup("Settings", ("valueerror",)), RuleGroup("Cutting", ("stop",)))
    assert grouped(rules, groups) == [
        ("Settings", [rules[0]]),
        ("Cutting", [rules[1]]),
        (LEFTOVER_TITLE, [rules[2]]),
    ]


def test_rule_list_marks_public_rules_and_escapes_markdown() -> None:
    text = rules_markdown(
        [SuiteRule("Each chunk is text[i:i+size].", True), SuiteRule("*Never* empty.", False)],
        (RuleGroup("All", ()),),
    )
    assert "- Each chunk is text\\[i:i+size\\]. *(self-check)*" in text
    assert "- \\*Never\\* empty.\n" in text + "\n"
    assert literal("min_chunk_size") == "min_chunk_size"


@pytest.mark.parametrize("lesson", LESSON_IDS)
def test_every_lesson_states_how_soon_short_calls_and_loading_must_finish(lesson):
    # The limits a slow start meets are the kit's defaults; the lesson says them in words.
    words = {0.1: "a tenth of a second", 0.25: "a quarter of a second"}
    text = " ".join((LESSONS[lesson].folder / "rules.md").read_text(encoding="utf-8").split())
    assert f"more than about {words[Limits().call_floor_seconds]} is taken for a loop" in text
    assert f"for more than {words[LOAD_SECONDS]}" in text
    assert 'if __name__ == "__main__":' in text
