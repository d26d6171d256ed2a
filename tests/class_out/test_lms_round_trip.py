"""From an LMS download to the LMS's own files and back, for each LMS, checked cell by cell."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.class_out.roster import RosterColumns, read_roster
from chunklab.reading.lms_download import detect, read_download
from chunklab.reading.lms_files import plain_name
from tests.class_out.lms_classes import canvas_class, classroom_class, moodle_class, solution, write
from tests.class_out.test_class_gradebooks import rows_of
from tests.conftest import KIT_ROOT


def members(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
        return {name: archive.read(name).decode("utf-8") for name in archive.namelist()}


@pytest.mark.parametrize(
    ("original", "graded_as"),
    [
        ("char_chunk.py", "char_chunk.py"),
        ("Char_Chunk.py", "char_chunk.py"),
        ("char-chunk.py", "char_chunk.py"),
        ("char_chunk (1).py", "char_chunk.py"),
        ("char_chunk-1.py", "char_chunk.py"),
        ("char_chunk_final.py", "char_chunk.py"),
        ("char_chunk.PY", "char_chunk.py"),
        ("char_chunk.py.txt", "char_chunk.py"),
        ("My Work.zip", "My Work.zip"),
        ("helpers.py", "helpers.py"),
    ],
)
def test_a_handed_in_file_is_graded_as_the_lesson_it_plainly_is(original, graded_as):
    plain = plain_name(original)
    assert plain is not None and plain.name == graded_as
    assert (plain.note == "") == (original == graded_as)


def test_a_file_that_is_no_code_is_not_graded_and_said():
    assert plain_name("char_chunk.docx") is None


def test_each_download_is_told_apart_from_a_class_folder(tmp_path):
    canvas, _ = canvas_class(tmp_path)
    classroom, _ = classroom_class(tmp_path)
    moodle = tmp_path / "moodle"
    write(moodle / "Ann Smith-Jones_2003_assignsubmission_file" / "char_chunk.py", "x")
    plain = tmp_path / "plain"
    write(plain / "alice" / "char_chunk.py", "x")
    write(plain / "bob_1_2_char_chunk.py", "x")
    assert [detect(p) for p in (canvas, moodle, classroom, plain)] == [
        "canvas",
        "moodle",
        "github-classroom",
        None,
    ]


def test_a_canvas_download_and_export_round_trip(chunklab, tmp_path):
    download, export = canvas_class(tmp_path)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "2", "--out", out, "--roster", export, "--lms", "canvas", download
    )
    assert result.exit_code == 0, result.stderr
    assert "read as a Canvas download (detected; --from chooses)" in result.stderr
    reports = {r["lms_id"]: r for r in result.reports}
    full = reports["101"]["max_score"]
    told = {key: (r["student"], r["score"], r.get("late", False)) for key, r in reports.items()}
    assert told == {
        "101": ("delacruzmaría", full, False),
        "102": ("obrienseán", full, True),
        "103": ("smithjonesann", full, False),  # the later upload, not the first stub
        "104": ("zhangwei", full, False),  # the file in the zip
    }
    # Each file by its name in the download, never by where the grading machine keeps it.
    shown = "canvas-submissions/smithjonesann_103_9013_char_chunk-1.py"
    assert reports["103"]["submission"] == shown
    first_upload = [w["message"] for w in reports["103"]["warnings"]]
    assert any("9003_char_chunk.py is not graded" in message for message in first_upload)
    assert reports["104"]["submission"].endswith("my work.zip: hw/Char_Chunk.py")
    assert rows_of(out / "gradebook_canvas.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Char chunk (5501)"],
        ["Points Possible", "", "", "", "", "10"],
        ["de la Cruz, María", "101", "S101", "mdelacruz", "CS 101 A", "10"],
        ["O'Brien, Seán", "102", "S102", "sobrien", "CS 101 A", "10"],
        ["Smith-Jones, Ann", "103", "S103", "asmithjones", "CS 101 A", "10"],
        ["Zhang, Wei", "104", "S104", "wzhang", "CS 101 B", "10"],
        ["Nguyen, An", "105", "S105", "anguyen", "CS 101 B", ""],  # nothing handed in
        ["Student, Test", "106", "", "", "CS 101 A", ""],
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["roster"]["match_rate"] == 1.0
    assert summary["roster"]["missing_students"] == ["anguyen"]
    pages = members(out / "feedback_canvas.zip")
    assert sorted(pages) == [
        "delacruzmaría_101_9001_feedback.html",
        "obrienseán_LATE_102_9002_feedback.html",
        "smithjonesann_103_9013_feedback.html",
        "zhangwei_104_9004_feedback.html",
    ]
    assert "Feedback for de la Cruz, María" in pages["delacruzmaría_101_9001_feedback.html"]
    # A page names the file graded, not where the grading machine keeps it.
    graded = '<span class="muted">smithjonesann_103_9013_char_chunk-1.py</span>'
    assert graded in pages["smithjonesann_103_9013_feedback.html"]
    in_zip = "canvas-submissions/zhangwei_104_9004_my work.zip: hw/Char_Chunk.py"
    assert f'<span class="muted">{in_zip}</span>' in pages["zhangwei_104_9004_feedback.html"]


def test_a_moodle_zip_and_grading_worksheet_round_trip(chunklab, tmp_path):
    download, worksheet = moodle_class(tmp_path)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "2", "--out", out, "--roster", worksheet, "--lms", "moodle", download
    )
    assert result.exit_code == 0, result.stderr
    reports = {r["lms_id"]: r for r in result.reports}
    assert {key: r["student"] for key, r in reports.items()} == {
        "2001": "María de la Cruz",
        "2002": "Seán O'Brien",
        "2003": "Ann Smith-Jones",
    }
    assert reports["2001"]["submission"] == (
        "CS101-Chunking-2345.zip: María de la Cruz_2001_assignsubmission_file/char_chunk.py"
    )
    ann = [w["message"] for w in reports["2003"]["warnings"]]
    assert any(m.endswith("notes.docx is not graded: only .py files and .ipynb notebooks are "
                          "graded; hand in your code as a .py file or the lesson's notebook")
               for m in ann)  # fmt: skip
    stub = round(reports["2003"]["score"] / reports["2003"]["max_score"] * 100, 2)
    rows = rows_of(out / "gradebook_moodle.csv")
    assert rows[0] == worksheet.read_text().splitlines()[0].replace('"', "").split(",")
    modified = [row.pop(8) for row in rows[1:4]]
    assert all(datetime.fromisoformat(stamp) for stamp in modified)
    comments = [row.pop() for row in rows[1:]]
    assert comments[:3] == [
        "37 of 37 points; the feedback file says rule by rule.",
        "37 of 37 points; the feedback file says rule by rule.",
        f"{reports['2003']['score']:g} of 37 points; the feedback file says rule by rule.",
    ]
    assert rows[1:] == [
        ["Participant 2001", "María de la Cruz", "maria@uni.example", "Submitted for grading",
         "100", "100.00", "Yes", "Monday, 2 June 2025, 10:00 AM"],
        ["Participant 2002", "Seán O'Brien", "sean@uni.example", "Submitted for grading",
         "100", "100.00", "Yes", "Monday, 2 June 2025, 11:00 AM"],
        ["Participant 2003", "Ann Smith-Jones", "ann@uni.example", "Submitted for grading",
         f"{stub:g}", "100.00", "Yes", "Monday, 2 June 2025, 12:00 PM"],
        ["Participant 2004", "An Nguyen", "an@uni.example", "No submission", "", "100.00",
         "Yes", "-", "-"],
    ]  # fmt: skip
    assert comments[3] == ""
    assert sorted(members(out / "feedback_moodle.zip")) == [
        "Ann Smith-Jones_2003_assignsubmission_file/feedback.html",
        "María de la Cruz_2001_assignsubmission_file/feedback.html",
        "Seán O'Brien_2002_assignsubmission_file_/feedback.html",
    ]


def test_a_classroom_clone_grades_the_file_each_student_worked_on(chunklab, tmp_path):
    clone, roster = classroom_class(tmp_path)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "2", "--out", out, "--roster", roster, "--lesson", "char_chunk", clone
    )
    assert result.exit_code == 0, result.stderr
    graded = {r["lms_id"]: (r["status"], r["score"], Path(r["submission"]).name)
              for r in result.reports}  # fmt: skip
    full = result.reports[0]["max_score"]
    assert graded == {
        "ann-sj": ("not_attempted", 0.0, "char_chunk.py"),
        "maria-dlc": ("graded", full, "char_chunk.ipynb"),  # the solved notebook, not the stub
        "sean-ob": ("graded", full, "char_chunk.py"),
    }
    rows = {row[0]: row[5] for row in rows_of(out / "gradebook.csv")[1:]}
    assert rows == {
        "ann.smith-jones@uni.example": "not_attempted",
        "maria.delacruz@uni.example": "graded",
        "sean.obrien@uni.example": "graded",
        "an.nguyen@uni.example": "missing",
    }
    summary = json.loads((out / "summary.json").read_text())
    # Nothing handed in is no score: the mean counts the two who worked.
    assert summary["lessons"]["char_chunk"]["mean_score"] == full


def test_grading_part_of_a_class_writes_no_grade_for_the_rest(chunklab, tmp_path):
    download, export = canvas_class(tmp_path)
    out = tmp_path / "out"
    one = download / "delacruzmaría_101_9001_char_chunk.py"
    result = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", export, "--lms", "canvas",
        "--points", "5", one,
    )  # fmt: skip
    # A lone file is no download: its student is told by name, and matches nobody.
    assert result.exit_code == 4
    assert "their grades are not in the LMS file (exit status 4; --allow-unmatched makes it 0)" in (
        result.stderr
    )
    cells = [row[5] for row in rows_of(out / "gradebook_canvas.csv")[1:]]
    assert cells == ["5", "", "", "", "", "", ""]
    folder = tmp_path / "part"
    write(folder / one.name, one.read_text())
    zero = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", export, "--lms", "canvas",
        "--missing-as-zero", "--assignment", "Char chunk (5501)", folder,
    )  # fmt: skip
    assert zero.exit_code == 0
    cells = [row[5] for row in rows_of(out / "gradebook_canvas.csv")[2:]]
    assert cells == ["10", "0", "0", "0", "0", ""]  # the Test Student is never missing


def graded_until_interrupted(chunklab, tmp_path, monkeypatch, reports: int) -> Path:
    """The Canvas class graded with its export and --missing-as-zero, Ctrl-C pressed once
    `reports` reports are in; the output folder."""
    from chunklab.commands import grade

    graded = grade.grade_locally

    def stopped(*args, **kwargs):
        if reports == 0:
            raise KeyboardInterrupt
        for number, (index, report) in enumerate(graded(*args, **kwargs), start=1):
            yield index, report
            if number == reports:
                raise KeyboardInterrupt

    monkeypatch.setattr(grade, "grade_locally", stopped)
    download, export = canvas_class(tmp_path)
    out = tmp_path / "out"
    result = chunklab(
        "grade", "--jobs", "1", "--out", out, "--roster", export, "--lms", "canvas",
        "--missing-as-zero", download,
    )  # fmt: skip
    assert result.exit_code == 130
    assert "missing: anguyen" in result.stderr
    return out


def test_a_run_interrupted_writes_no_grade_for_a_student_it_did_not_grade(
    chunklab, tmp_path, monkeypatch
):
    # Ctrl-C after the first report: the students whose submissions were found but not
    # graded are no missing students, and get no 0, even with --missing-as-zero.
    out = graded_until_interrupted(chunklab, tmp_path, monkeypatch, reports=1)
    rows = rows_of(out / "gradebook_canvas.csv")[2:]
    # María graded; Seán, Ann and Wei found, not graded; An handed in nothing: 0.
    assert [row[5] for row in rows] == ["10", "", "", "", "0", ""]
    statuses = {row[0]: row[5] for row in rows_of(out / "gradebook.csv")[1:6]}
    assert statuses == {
        "mdelacruz": "graded",
        "sobrien": "not_graded",
        "asmithjones": "not_graded",
        "wzhang": "not_graded",
        "anguyen": "missing",
    }
    # Their scores are not known, nor are the totals.
    wide = {row[0]: row[1:] for row in rows_of(out / "gradebook_wide.csv")[1:]}
    assert wide["mdelacruz"] == ["37", "37"] and wide["sobrien"] == ["", ""]
    assert wide["anguyen"] == ["0", "0"]


def test_a_run_interrupted_before_any_report_still_lists_who_was_not_graded(
    chunklab, tmp_path, monkeypatch
):
    out = graded_until_interrupted(chunklab, tmp_path, monkeypatch, reports=0)
    statuses = {row[0]: (row[1], row[5]) for row in rows_of(out / "gradebook.csv")[1:6]}
    assert statuses["sobrien"] == ("char_chunk", "not_graded")
    assert statuses["anguyen"] == ("char_chunk", "missing")


def test_a_worksheet_header_in_another_case_is_the_same_column():
    from chunklab.class_out.roster import RosterStudent

    row = RosterStudent("ann", "2003", "Ann", (("Maximum Grade", "50.00"), ("Grade", "")))
    assert row.field("Maximum grade") == "50.00"
    assert row.field("Grade") == "" and row.field("Feedback comments") == ""


def test_a_zip_name_in_utf8_without_the_utf8_flag_is_read_as_utf8():
    from chunklab.reading.lms_files import member_name

    # Info-ZIP's `zip` writes UTF-8 bytes and leaves the flag unset: Python reads cp437.
    written = "Renée Dubois_2005_assignsubmission_file/char_chunk.py"
    as_cp437 = zipfile.ZipInfo(written.encode("utf-8").decode("cp437"))
    assert as_cp437.flag_bits & 0x800 == 0
    assert member_name(as_cp437) == written
    flagged = zipfile.ZipInfo("├⌐.py")
    flagged.flag_bits |= 0x800
    assert member_name(flagged) == "├⌐.py"
    assert member_name(zipfile.ZipInfo("\x80.py")) == "\x80.py"  # not UTF-8: kept as read


def test_two_students_of_one_name_are_two_students(chunklab, tmp_path):
    wrong = (KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "drops_the_end.py").read_text()
    canvas = tmp_path / "canvas"
    write(canvas / "smithjohn_201_9201_char_chunk.py", solution())
    write(canvas / "smithjohn_202_9202_char_chunk.py", wrong)
    moodle = tmp_path / "moodle"
    write(moodle / "John Smith_3001_assignsubmission_file" / "char_chunk.py", solution())
    write(moodle / "JOHN SMITH_3002_assignsubmission_file" / "char_chunk.py", wrong)
    for download, first, second in (
        (canvas, "smithjohn (201)", "smithjohn (202)"),
        (moodle, "John Smith (3001)", "JOHN SMITH (3002)"),
    ):
        out = tmp_path / f"out_{download.name}"
        result = chunklab("grade", "--out", out, download)
        assert result.exit_code == 0, result.stderr
        scores = {r["student"]: r["score"] for r in result.reports}
        full = result.reports[0]["max_score"]
        assert scores[first] == full and 0 < scores[second] < full
        assert len(scores) == 2
        pages = sorted((out / "feedback").glob("*.html"))
        assert len(pages) == 2
        # Each page holds one student's grade: never the other's.
        told = [f"{full:g} / {full:g}" in page.read_text() for page in pages]
        assert sorted(told) == [False, True]
        # And each goes back to the LMS in its bulk feedback upload.
        archive = members(out / f"feedback_{download.name}.zip")
        assert len(archive) == 2 and len(set(archive.values())) == 2


def test_a_name_two_roster_rows_share_matches_neither(tmp_path):
    # A Moodle gradebook export: its rows carry no participant id, so a download's folder
    # is matched by the full name.
    roster = write(
        tmp_path / "roster.csv",
        "Full name,Email address\nJohn Smith,js1@uni.example\njohn smith,js2@uni.example\n"
        "Ann Lee,al@uni.example\n",
    )
    read = read_roster(roster, RosterColumns(None, None, None))
    assert read.find("John Smith", "3001") is None
    found = read.find("Ann Lee", "3003")
    assert found is not None and found.key == "al@uni.example"


def test_a_download_names_the_file_graded_with_a_notebook_handed_in_beside_it(chunklab, tmp_path):
    canvas = tmp_path / "canvas"
    wrong = (KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "drops_the_end.py").read_text()
    right = notebook_text(submission_notebook("char_chunk", solution()))
    write(canvas / "dubéjosé_301_9301_char_chunk.ipynb", right)
    write(canvas / "dubéjosé_301_9302_char_chunk.py", wrong)
    result = chunklab("grade", canvas)
    assert result.exit_code == 0, result.stderr
    (report,) = result.reports
    assert report["submission"].endswith("dubéjosé_301_9302_char_chunk.py")
    assert report["score"] < report["max_score"]
    assert [w["kind"] for w in report["warnings"]] == ["file_left_out"]


@pytest.mark.parametrize(
    "handed_in",
    # Named for the lesson; or not, when every file of code in the download names one.
    ["zhaowei_401_9401_char_chunk.pdf", "zhaowei_401_9401_homework.pdf"],
)
def test_a_student_who_handed_in_no_code_gets_one_report_for_the_lesson(
    chunklab, tmp_path, handed_in
):
    canvas = tmp_path / "canvas"
    write(canvas / handed_in, b"%PDF-1.4 not code")
    write(canvas / "leeann_402_9402_char_chunk.py", solution())
    result = chunklab("grade", canvas)
    assert result.exit_code == 0, result.stderr
    report = next(r for r in result.reports if r["lms_id"] == "401")
    assert (report["lesson"], report["status"], report["score"]) == ("char_chunk", "error", 0)
    assert report["max_score"] == next(r for r in result.reports if r["lms_id"] == "402")["score"]
    assert report["submission"].endswith(handed_in)
    assert [e["message"] for e in report["errors"]] == [
        f"there is no .py file or notebook to grade in {report['submission']}"
    ]


def test_two_students_of_one_name_in_two_downloads_graded_together_are_two(chunklab, tmp_path):
    wrong = (KIT_ROOT / "solutions" / "mistakes" / "char_chunk" / "drops_the_end.py").read_text()
    write(tmp_path / "section_a" / "smithjohn_201_9201_char_chunk.py", solution())
    write(tmp_path / "section_b" / "smithjohn_202_9202_char_chunk.py", wrong)
    out = tmp_path / "out"
    result = chunklab("grade", "--out", out, tmp_path / "section_a", tmp_path / "section_b")
    assert result.exit_code == 0, result.stderr
    assert sorted(r["student"] for r in result.reports) == ["smithjohn (201)", "smithjohn (202)"]
    assert len(list((out / "feedback").glob("*.html"))) == 2
    archive = members(out / "feedback_canvas.zip")
    assert sorted(archive) == [f"smithjohn_20{n}_920{n}_feedback.html" for n in (1, 2)]
    assert len(set(archive.values())) == 2


def test_canvas_feedback_goes_to_the_upload_that_was_graded(tmp_path):
    canvas = tmp_path / "canvas"
    right = notebook_text(submission_notebook("char_chunk", solution()))
    write(canvas / "dubéjosé_301_9301_char_chunk.ipynb", right)
    write(canvas / "dubéjosé_301_9302_char_chunk.py", solution())
    # As an unpacked zip's files are shown: after the zip's name.
    download = read_download(
        canvas, "canvas", True, None, 1024 * 1024, tmp_path / "staged", None, "submissions.zip: "
    )
    (handed,) = download.handed
    assert handed.item.display.endswith("dubéjosé_301_9302_char_chunk.py")
    assert handed.feedback_as == "dubéjosé_301_9302_feedback.html"


def test_a_moodle_folder_name_matches_the_full_name_moodle_made_it_from(tmp_path):
    # Moodle drops ' and & (among others) from the names it writes in its folder names.
    roster = write(
        tmp_path / "roster.csv",
        "Full name,Email address\nSeán O'Brien,sean@uni.example\nRen & Stimpy,ren@uni.example\n",
    )
    read = read_roster(roster, RosterColumns(None, None, None))
    found = [read.find(name, "3001") for name in ("Seán OBrien", "Ren  Stimpy", "Sean OBrien")]
    assert [s.key if s else None for s in found] == ["sean@uni.example", "ren@uni.example", None]


def test_canvas_feedback_holds_no_page_for_a_user_the_export_does_not_list(chunklab, tmp_path):
    download, export = canvas_class(tmp_path)
    write(download / "newstudent_999_9999_char_chunk.py", solution())
    out = tmp_path / "out"
    result = chunklab("grade", "--out", out, "--roster", export, "--lms", "canvas", download)
    assert result.exit_code == 4
    assert (out / "feedback" / "newstudent.html").exists()
    assert not [name for name in members(out / "feedback_canvas.zip") if "_999_" in name]


def test_a_report_taken_back_by_resume_keeps_its_download_warnings_once(chunklab, tmp_path):
    download, export = canvas_class(tmp_path)
    out = tmp_path / "out"
    first = chunklab("grade", "--out", out, download)
    again = chunklab("grade", "--out", out, "--resume", download)
    assert first.exit_code == again.exit_code == 0, again.stderr
    warned = [{r["lms_id"]: r["warnings"] for r in run.reports} for run in (first, again)]
    assert warned[0]["103"] and warned[1] == warned[0]


def test_grades_in_the_kits_own_points_are_said_to_be_so(chunklab, tmp_path):
    download, _ = canvas_class(tmp_path)
    plain = chunklab("grade", "--out", tmp_path / "a", "--lms", "canvas", download)
    scaled = chunklab("grade", "--out", tmp_path / "b", "--lms", "canvas", "--points=5", download)
    full = plain.reports[0]["max_score"]
    said = (
        f"the LMS file gives char_chunk in the kit's own points (of {full:g}): the roster says "
        "none for it; --points N scales every grade to N"
    )
    assert said in plain.stderr and said not in scaled.stderr
