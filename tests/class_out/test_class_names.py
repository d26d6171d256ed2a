"""Names in a class folder: every student kept apart, nobody skipped unseen, every cell inert.

One class is graded once; each test reads what that run wrote.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from chunklab.class_out.csv_file import cell, csv_text
from chunklab.class_out.html_page import esc
from chunklab.cli import main
from chunklab.reading.student import name_beside_lesson
from tests.conftest import KIT_ROOT

STUB = "def chunk(text, size, overlap):\n    return []\n"
ROSTER = "Student,ID,SIS User ID,SIS Login ID,Section\nJohn Smith,1,u1,j.smith,A\n"
# File (or folder) name -> whether it holds the full solution.
CLASS = {
    "j.smith_char_chunk.py": True,
    "mary.ann_char_chunk.py": False,
    "mary-ann_char_chunk.py": True,
    "mary_ann_char_chunk.py": False,
    "_alice_char_chunk.py": True,
    "_bob/char_chunk.py": False,
    ".carol_char_chunk.py": True,
    ".dan/char_chunk.py": True,
    ".git/hooks.py": False,
    "__pycache__/x_char_chunk.py": False,
    "frank/char_chunk.py": False,
    "frank\u200b_char_chunk.py": True,
    "new\nline_char_chunk.py": False,
    "\uff1d1+1_char_chunk.py": False,
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], str]:
    """The class graded once with a Canvas roster: its output folder, reports and stderr."""
    root = tmp_path_factory.mktemp("names")
    folder = root / "class"
    solution = (KIT_ROOT / "solutions/char_chunk.py").read_text()
    for name, full in CLASS.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(solution if full else STUB)
    roster = root / "roster.csv"
    roster.write_text(ROSTER)
    out = root / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    args = ["grade", str(folder), "--out", str(out), "--roster", str(roster), "--lms", "canvas",
            "--allow-unmatched"]  # fmt: skip
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        patch.chdir(KIT_ROOT)
        code = main([*args, "--quiet", "--jobs", "2"])
    assert code == 0
    reports = [json.loads(line) for line in stdout.getvalue().splitlines()]
    return out, reports, stderr.getvalue()


def rows_of(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


@pytest.mark.parametrize(
    ("file_name", "student"),
    [
        ("j.smith_char_chunk.py", "j.smith"),
        ("char_chunk-mary-ann.py", "mary-ann"),
        ("alice_char_chunk.py", "alice"),
        ("Carol Smith - word_chunk.py", "Carol Smith"),
        ("bob _char_chunk.ipynb", "bob"),
        ("erin_char_chunk_v2.py", "erin_v2"),
        ("char_chunk.py", ""),
    ],
)
def test_a_files_student_keeps_every_character_but_the_lesson_id_and_its_separators(
    file_name, student
):
    assert name_beside_lesson(file_name) == student


def test_students_whose_names_differ_stay_apart_in_reports_gradebooks_and_pages(graded):
    out, reports, _ = graded
    by_student = {r["student"]: r["score"] for r in reports}
    full = max(by_student.values())
    assert {s: by_student[s] == full for s in ("mary.ann", "mary-ann", "mary_ann")} == {
        "mary.ann": False,
        "mary-ann": True,
        "mary_ann": False,
    }
    gradebook = {row[0]: row for row in rows_of(out / "gradebook.csv")[1:]}
    assert {"mary.ann", "mary-ann", "mary_ann", "frank", "frank\\u200b"} <= set(gradebook)
    assert gradebook["frank"][2] != gradebook["frank\\u200b"][2]
    pages = sorted(path.name for path in (out / "feedback").glob("mary*"))
    assert len(pages) == 3


def test_a_dotted_login_finds_its_roster_row(graded):
    out, _, _ = graded
    gradebook = {row[0]: row for row in rows_of(out / "gradebook.csv")[1:]}
    assert gradebook["j.smith"][5] == "graded" and gradebook["j.smith"][8] == ""
    assert "j_smith" not in gradebook
    canvas = rows_of(out / "gradebook_canvas.csv")
    assert canvas[2][0] == "John Smith" and float(canvas[2][5]) == float(canvas[1][5])


def test_underscore_entries_are_graded_and_dot_entries_are_warned_of(graded):
    _, reports, stderr = graded
    students = {r["student"] for r in reports}
    assert {"_alice", "_bob"} <= students
    assert not any(s.startswith(".") for s in students)
    warned = [line for line in stderr.splitlines() if "starts with '.'" in line]
    assert [Path(line.split()[3]).name for line in warned] == [".carol_char_chunk.py", ".dan"]
    assert len(reports) == 10  # all but the dot-entries and __pycache__


def test_every_csv_row_is_one_line_and_shows_hidden_characters(graded):
    out, _, _ = graded
    for name in ("gradebook.csv", "gradebook_wide.csv", "rules.csv", "gradebook_canvas.csv"):
        text = (out / name).read_text(encoding="utf-8")
        assert all(line.count(",") >= 1 for line in text.splitlines()), name
        assert text.isprintable() or set(text) - set(filter(str.isprintable, text)) == {"\n"}
        assert "\u200b" not in text and "\n" + "line" not in text.replace("\\n", "")
    cells = [row[0] for row in rows_of(out / "gradebook.csv")]
    assert "new\\nline" in cells and "'\uff1d1+1" in cells


def test_the_html_pages_show_hidden_characters(graded):
    out, _, _ = graded
    for page in [out / "report.html", *(out / "feedback").glob("*.html")]:
        assert "\u200b" not in page.read_text(encoding="utf-8"), page.name


@pytest.mark.parametrize("hidden", ["\u200b", "\ufeff", "\u00ad", "\ufff9", "\ue000", "\u0378"])
def test_a_hidden_character_is_escaped_in_a_cell_and_replaced_on_a_page(hidden):
    assert cell(f"frank{hidden}") == "frank" + ascii(hidden)[1:-1]
    assert esc(f"frank{hidden}") == "frank\ufffd"


@pytest.mark.parametrize("lead", ["=", "+", "-", "@", "\uff1d", "\uff0b"])
def test_a_formula_lead_gets_an_apostrophe(lead):
    assert csv_text(["a"], [[f"{lead}1+1"]]) == f"a\n'{lead}1+1\n"


def test_tabs_and_line_breaks_in_a_cell_are_escaped():
    assert csv_text(["a"], [["x\ty\r\nz", 2.5]]) == "a\nx\\ty\\r\\nz,2.5\n"
