"""The command line as a person and a script see it: help, exit statuses, terminals and pipes."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunklab import __version__
from chunklab.authoring.bundle import pyproject_text
from chunklab.cli import main
from chunklab.commands.grade import wrote_line
from chunklab.kit import Kit
from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.reading.read import SubmissionPath
from chunklab.report_out.inert import json_line
from chunklab.report_out.json_lines import JsonLinesOut
from chunklab.report_out.report_layout import ReportLayout
from chunklab.scoring.report import GradeReport
from tests.conftest import LESSON_IDS

KIT_ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ("grade", "check", "validate", "release", "gradescope")


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"chunklab {__version__}"


@pytest.mark.parametrize("command", [*COMMANDS, ""])
def test_every_help_has_a_description_and_an_example(capsys, command):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"] if command else ["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    example = text.split("example:\n", 1)[1].strip()
    assert example.startswith(f"chunklab {command or 'grade'}")
    description = text.split("\n\n")[1]
    assert len(description.split()) >= 8, description


def test_the_student_bundles_command_offers_only_check(tmp_path, capsys):
    script = re.search(r'^chunklab = "(.+):(.+)"$', pyproject_text(Kit(KIT_ROOT)), re.M)
    assert script is not None
    module = __import__(script.group(1), fromlist=[script.group(2)])
    entry = getattr(module, script.group(2))
    for command in ("grade", "validate", "release", "gradescope"):
        with pytest.raises(SystemExit) as exit_:
            entry([command, str(tmp_path)])
        assert exit_.value.code == 2
        assert f"invalid choice: '{command}'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        entry(["check", "--help"])
    assert exit_.value.code == 0
    assert "example:" in capsys.readouterr().out


def test_check_tells_the_lesson_from_the_file_as_grade_does(chunklab, tmp_path):
    by_name = chunklab("check", "solutions/char_chunk.py")
    assert by_name.exit_code == 0
    assert "char_chunk self-check" in by_name.stdout
    notebook = tmp_path / "homework.ipynb"
    shutil.copy(KIT_ROOT / "notebooks" / "word_chunk.ipynb", notebook)
    by_metadata = chunklab("check", notebook)
    assert "word_chunk self-check" in by_metadata.stdout
    both = chunklab("check", "word_chunk", notebook)
    assert both.stdout == by_metadata.stdout
    unknown = tmp_path / "mine.py"
    unknown.write_text("x = 1\n")
    told = chunklab("check", unknown)
    assert told.exit_code == 2
    assert "cannot tell which lesson" in told.stderr
    assert "chunklab check LESSON" in told.stderr


def test_a_path_with_no_submission_is_a_warning_and_exit_3(chunklab, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing to grade")
    alone = chunklab("grade", empty)
    assert alone.exit_code == 3
    assert f"warning: {empty} holds no submission" in alone.stderr
    assert alone.reports == []
    mixed = chunklab("grade", empty, "solutions/char_chunk.py")
    assert mixed.exit_code == 3
    assert [r["status"] for r in mixed.reports] == ["graded"]


def test_at_a_terminal_a_person_sees_the_table_not_json(chunklab, tmp_path, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    out = tmp_path / "out"
    person = chunklab("grade", "--out", out, "solutions/char_chunk.py")
    assert person.stdout == ""
    assert person.stderr.splitlines()[0].split()[:4] == ["submission", "lesson", "score", "status"]
    assert f"wrote the reports to {out / 'submissions'}" in person.stderr
    asked = chunklab("grade", "--jsonl", "solutions/char_chunk.py")
    assert [r["lesson"] for r in asked.reports] == ["char_chunk"]
    quiet = chunklab("grade", "--quiet", "--jsonl", "solutions/char_chunk.py")
    assert quiet.stderr == ""
    assert [(r["lesson"], r["score"]) for r in quiet.reports] == [
        (r["lesson"], r["score"]) for r in asked.reports
    ]


def chunklab_process(*args: str | Path, **options: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "chunklab", *map(str, args)],
        cwd=KIT_ROOT,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


def test_a_closed_pipe_ends_quietly_and_the_files_are_still_written(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for lesson in LESSON_IDS:
        shutil.copy(KIT_ROOT / "solutions" / f"{lesson}.py", folder)
    out = tmp_path / "out"
    process = chunklab_process("grade", "--jobs", "1", "--out", out, folder, stdout=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first line, as with `| head -0`
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
    with (out / "gradebook.csv").open() as stream:
        assert [row["lesson"] for row in csv.DictReader(stream)] == sorted(LESSON_IDS)


def children_of(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def test_ctrl_c_ends_with_130_and_says_how_to_go_on(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(KIT_ROOT / "solutions" / "char_chunk.py", folder / "a_char_chunk.py")
    (folder / "b_char_chunk.py").write_text("while True:\n    pass\n")
    (folder / "c_char_chunk.py").write_text("while True:\n    pass\n")
    out = tmp_path / "out"
    process = chunklab_process(
        "grade", "--jobs", "1", "--out", out, folder,
        stdout=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    # Grading has begun once the sandbox's first process exists.
    while not children_of(process.pid) and process.poll() is None:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C at a terminal does
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert re.search(r"^interrupted: [0-3] of 3 graded; rerun with --resume$", stderr, re.M)
    assert "Traceback" not in stderr
    assert (out / "gradebook.csv").is_file()


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


def record_of(number: int, student: str) -> ReportRecord:
    submission = f"{student}_char_chunk.py"
    report = GradeReport("char_chunk", submission, "error", student=student)
    item = SubmissionPath(Path(submission), submission, student, "char_chunk")
    return ReportRecord(number, item, report, fresh=True)


def test_json_lines_come_in_input_order_and_an_interruption_prints_what_was_graded():
    stream = io.StringIO()
    printer = JsonLinesOut(stream, layout=ReportLayout())

    def students() -> list[str]:
        return [json.loads(line)["student"] for line in stream.getvalue().splitlines()]

    printer.add(record_of(1, "b"))
    assert stream.getvalue() == ""  # waits for the first
    printer.add(record_of(0, "a"))
    printer.add(record_of(3, "d"))
    assert students() == ["a", "b"]
    assert stream.getvalue().splitlines()[0] == json_line(record_of(0, "a").report.to_json())
    printer.finish(RunEnd(found=4, graded=3, interrupted=True, started=0.0))  # 2 never graded
    assert students() == ["a", "b", "d"]
    closed = JsonLinesOut(ClosedPipe(), layout=ReportLayout())
    closed.add(record_of(0, "a"))
    assert not closed.enabled


def test_a_run_that_wrote_no_report_does_not_say_it_did(tmp_path):
    told = wrote_line(tmp_path, ["gradebook.csv", "summary.json"], any_report=False)
    assert told == f"wrote gradebook.csv, summary.json to {tmp_path}"
    some = wrote_line(tmp_path, ["gradebook.csv"], any_report=True)
    reports = tmp_path / "submissions"
    assert some == f"wrote the reports to {reports} and gradebook.csv to {tmp_path}"
