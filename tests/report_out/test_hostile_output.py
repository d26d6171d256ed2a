"""Threats to what the run writes: every byte valid UTF-8 and inert, one report per line, file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from chunklab.report_out.files import report_file_name
from chunklab.report_out.inert import inert_text, json_line
from chunklab.report_out.table import Outline, results_table
from chunklab.text import terminal_safe

KIT_ROOT = Path(__file__).resolve().parents[2]
CHAR_SOLUTION = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()

# What no reader may meet raw: controls but tab and line feed, DEL and C1, line
# separators, bidirectional overrides, and lone surrogates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
HOSTILE_TEXT = "a\x1b[2J\x1b]0;title\x07\u2028b\u2029c\x85d\x9b31m\u202eé\ud800\udce9\n\r\x00"

# Prints, raises and returns text a terminal or a JSON reader could trip on.
HOSTILE_SUBMISSION = r"""
print("\x1b[2J\x1b]0;pwn\x07 \u2028 \x85 \x9b31m \u202e")


class Weird(str):
    def __repr__(self):
        return "w\u2028\x1b[31m\x85\u202e\ud800"


def chunk(text, size, overlap):
    if size <= 3:
        raise ValueError("bad \ud83d \u2029 \x1b[31mred\x9b\x00")
    print("\x1b[31m", "\u2028" * 3)
    return [Weird(text)]
"""


def test_json_lines_and_table_escape_whatever_the_text_holds():
    line = json_line({"message": HOSTILE_TEXT, HOSTILE_TEXT: [HOSTILE_TEXT]})
    line.encode("utf-8")  # no lone surrogate
    assert not RAW.search(line)
    assert "\n" not in line and "\r" not in line
    assert line.splitlines() == [line]
    back = json.loads(line)
    # Characters come back as they were; lone surrogates as the text of their escape.
    expected = HOSTILE_TEXT.replace("\ud800", "\\ud800").replace("\udce9", "\\udce9")
    assert back == {"message": expected, expected: [expected]}
    shown = terminal_safe(HOSTILE_TEXT)
    assert shown.isprintable()
    assert shown == (
        "a\\x1b[2J\\x1b]0;title\\x07\\u2028b\\u2029c\\x85d\\x9b31m\\u202eé\\ud800\\udce9\\n\\r\\x00"
    )
    in_file = inert_text(HOSTILE_TEXT)
    assert not RAW.search(in_file.replace("\n", "").replace("\r", ""))
    assert in_file.startswith("a\\x1b[2J") and in_file.endswith("\n\r\\x00")
    row = Outline(HOSTILE_TEXT * 20, "char_chunk", 1.0, 2.0, "graded", HOSTILE_TEXT)
    table = results_table([row])
    assert not RAW.search(table.replace("\n", ""))
    assert all(len(row) < 200 for row in table.splitlines())


def test_report_file_names_are_bounded_and_never_shared():
    names = ["José_char_chunk.py", "Josü_char_chunk.py", "张伟_char_chunk.py", "王芳_char_chunk.py"]
    names += [
        "李娜_char_chunk.py",
        "x" * 300 + "_char_chunk.py",
        "y" + "x" * 299 + "_char_chunk.py",
    ]
    made = [report_file_name(f"class/{n}", f"/srv/class/{n}") for n in names]
    assert len(set(made)) == len(names)
    assert all(len(name.encode("utf-8")) <= 100 for name in made)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+-[0-9a-f]{12}\.json", name) for name in made)
    assert made[0].startswith("class__Jose_char_chunk.py-")  # still readable
    assert made == [report_file_name(f"class/{n}", f"/srv/class/{n}") for n in names]


def test_hostile_text_and_names_never_break_the_output(chunklab, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    names = [
        "{{ 7*191 }}{% for x in y %}<script>a_char_chunk.py",  # template syntax, markup
        os.fsdecode(b"b\xe9\xff_char_chunk.py"),  # not UTF-8
        "c\x1b[31m\u2028\u202e_char_chunk.py",
        "José_char_chunk.py",
        "Josü_char_chunk.py",
        "张伟_char_chunk.py",
        "王芳_char_chunk.py",
        "d" * 240 + "_char_chunk.py",  # 254 characters
    ]
    for name in names:
        (folder / name).write_text(HOSTILE_SUBMISSION)
    (folder / "zz_char_chunk.py").write_text(CHAR_SOLUTION)
    out = tmp_path / "out"
    result = chunklab("grade", "--jobs", "1", "--out", out, folder)
    assert result.exit_code == 0
    result.stdout.encode("utf-8")
    result.stderr.encode("utf-8")
    assert not RAW.search(result.stdout.replace("\n", ""))
    assert not RAW.search(result.stderr.replace("\n", ""))
    lines = result.stdout.rstrip("\n").split("\n")
    assert len(lines) == len(names) + 1  # one line per report, whatever it holds
    reports = [json.loads(line) for line in lines]
    assert [r["status"] for r in reports] == ["graded"] * len(lines)
    [good] = [r for r in reports if r["submission"].endswith("zz_char_chunk.py")]
    assert good["score"] == good["max_score"] > 0
    feedback = " ".join(t["feedback"] for t in reports[0]["tests"])
    assert "bad" in feedback  # the submission's own message reaches the student, escaped
    files = sorted((out / "submissions").iterdir())
    assert len(files) == len(reports)
    for path in out.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8")
            assert not RAW.search(text.replace("\n", "")), path
    # Template syntax and markup a student wrote show as themselves on the pages, never run.
    syntax = "{{ 7*191 }}{% for x in y %}&lt;script&gt;"
    pages = [out / "report.html", *(out / "feedback").glob("*.html")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "<script" not in text and "1337" not in text, page
    [theirs] = (out / "feedback").glob("7_191_for_x_in_y_script_a-*.html")
    for page in (out / "report.html", theirs):
        assert syntax + "a" in page.read_text(encoding="utf-8")  # the student's name
    written = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    assert sorted(r["submission"] for r in written) == sorted(r["submission"] for r in reports)


def test_a_report_that_cannot_be_written_is_reported_and_the_run_goes_on(
    chunklab, tmp_path, kit_root
):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("a_char_chunk.py", "b_char_chunk.py"):
        (folder / name).write_text(CHAR_SOLUTION)
    out = tmp_path / "out"
    blocked = folder / "a_char_chunk.py"
    # A folder where the report file should go: no user, root included, can replace it.
    resolved = os.path.realpath(blocked)
    (out / "submissions" / report_file_name(str(blocked), resolved)).mkdir(parents=True)
    result = chunklab("grade", "--jobs", "1", "--out", out, folder)
    assert result.exit_code == 0
    first, second = result.reports
    assert [w["kind"] for w in first["warnings"]] == ["not_written"]
    assert "could not be written" in result.stderr
    assert second["warnings"] == []
    assert first["score"] == second["score"] == second["max_score"]
    written = [p for p in (out / "submissions").iterdir() if p.is_file()]
    assert [json.loads(p.read_text())["submission"] for p in written] == [
        str(folder / "b_char_chunk.py")
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["reports_not_written"] == [str(blocked)]
    assert (out / "gradebook.csv").is_file()
