"""Three small classes as Canvas, Moodle and GitHub Classroom hand them out, with their rosters.

File and folder names follow each LMS's own code: Canvas's
`lib/content_zipper.rb` (sortable name lower-cased, non-word characters
removed, `_LATE`, user id, attachment id, file name; `-1` on a second upload
of a file name), Moodle's `mod/assign` download (`<full name>_<participant
id>_assignsubmission_file`, a trailing `_` before 4.1) and grading worksheet,
and `gh classroom clone student-repos` (`<assignment>-submissions/
<assignment>-<username>/`, copies of the student bundle). Each class has
accents, an apostrophe, a hyphen, a particle ("de la Cruz"), and a student
without a submission; Canvas also a late hand-in, a resubmission, a zip upload
and its Test Student.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[2]
STUB_CODE = "def chunk(text, size, overlap):\n    return []\n"


def solution() -> str:
    return (KIT_ROOT / "solutions/char_chunk.py").read_text(encoding="utf-8")


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def zipped(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


# The Canvas gradebook export: a BOM, the Points Possible row, the Test Student, read-only totals.
CANVAS_EXPORT = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Char chunk (5501),Word chunk (5502),"
    "Current Score,Final Score\n"
    "    Points Possible,,,,,10.00,10.00,(read only),(read only)\n"
    '"de la Cruz, María",101,S101,mdelacruz,CS 101 A,,8.00,,\n'
    '"O\'Brien, Seán",102,S102,sobrien,CS 101 A,,,,\n'
    '"Smith-Jones, Ann",103,S103,asmithjones,CS 101 A,,,,\n'
    '"Zhang, Wei",104,S104,wzhang,CS 101 B,,,,\n'
    '"Nguyen, An",105,S105,anguyen,CS 101 B,,,,\n'
    '"Student, Test",106,,,CS 101 A,,,,\n'
)


def canvas_class(root: Path) -> tuple[Path, Path]:
    """A Canvas "Download Submissions" folder and the gradebook export."""
    folder = root / "canvas-submissions"
    write(folder / "delacruzmaría_101_9001_char_chunk.py", solution())
    write(folder / "obrienseán_LATE_102_9002_char_chunk.py", solution())
    write(folder / "smithjonesann_103_9003_char_chunk.py", STUB_CODE)
    write(folder / "smithjonesann_103_9013_char_chunk-1.py", solution())
    write(folder / "zhangwei_104_9004_my work.zip", zipped({"hw/Char_Chunk.py": solution()}))
    return folder, write(root / "canvas_export.csv", CANVAS_EXPORT)


MOODLE_WORKSHEET = (
    "Identifier,Full name,Email address,Status,Grade,Maximum grade,Grade can be changed,"
    '"Last modified (submission)","Last modified (grade)",Feedback comments\n'
    "Participant 2001,María de la Cruz,maria@uni.example,Submitted for grading,,100.00,Yes,"
    '"Monday, 2 June 2025, 10:00 AM",-,\n'
    "Participant 2002,Seán O'Brien,sean@uni.example,Submitted for grading,,100.00,Yes,"
    '"Monday, 2 June 2025, 11:00 AM",-,\n'
    "Participant 2003,Ann Smith-Jones,ann@uni.example,Submitted for grading,,100.00,Yes,"
    '"Monday, 2 June 2025, 12:00 PM",-,\n'
    "Participant 2004,An Nguyen,an@uni.example,No submission,,100.00,Yes,-,-,\n"
)


def moodle_class(root: Path) -> tuple[Path, Path]:
    """A Moodle "Download all submissions" zip and the assignment's grading worksheet."""
    files = {
        "María de la Cruz_2001_assignsubmission_file/char_chunk.py": solution(),
        # Before Moodle 4.1 the folder name ends in `_`; a browser's copy mark on the file.
        "Seán O'Brien_2002_assignsubmission_file_/char-chunk (1).py": solution(),
        "Ann Smith-Jones_2003_assignsubmission_file/Char_Chunk.PY": STUB_CODE,
        "Ann Smith-Jones_2003_assignsubmission_file/notes.docx": "notes",
    }
    download = write(root / "CS101-Chunking-2345.zip", zipped(files))
    return download, write(root / "grading_worksheet.csv", MOODLE_WORKSHEET)


CLASSROOM_ROSTER = (
    '"identifier","github_username","github_id","name"\n'
    '"maria.delacruz@uni.example","maria-dlc","1001","María de la Cruz"\n'
    '"sean.obrien@uni.example","sean-ob","1002","Seán O\'Brien"\n'
    '"ann.smith-jones@uni.example","ann-sj","1003","Ann Smith-Jones"\n'
    '"an.nguyen@uni.example","","",""\n'
)


def solved_notebook() -> str:
    """The lesson's notebook with the student's cell written: the reference in place of the stub."""
    notebook = json.loads((KIT_ROOT / "notebooks/char_chunk.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code" and "".join(cell["source"]).startswith("def chunk"):
            cell["source"] = solution()
    return json.dumps(notebook)


def bundle_copy(folder: Path, stub: str | None = None, notebook: str | None = None) -> None:
    """A student's repository: the bundle's stub and notebook (as given unless changed)."""
    write(folder / ".chunklab-release", '{"chunklab_release": "1", "lessons": []}\n')
    given_stub = (KIT_ROOT / "exercises/char_chunk.py").read_text(encoding="utf-8")
    given_notebook = (KIT_ROOT / "notebooks/char_chunk.ipynb").read_text(encoding="utf-8")
    write(folder / "exercises/char_chunk.py", stub or given_stub)
    write(folder / "notebooks/char_chunk.ipynb", notebook or given_notebook)


def classroom_class(root: Path) -> tuple[Path, Path]:
    """A `gh classroom clone student-repos` folder and the classroom roster."""
    folder = root / "chunking-hw-submissions"
    bundle_copy(folder / "chunking-hw-maria-dlc", notebook=solved_notebook())
    bundle_copy(folder / "chunking-hw-sean-ob", stub=solution())
    bundle_copy(folder / "chunking-hw-ann-sj")
    return folder, write(root / "classroom_roster.csv", CLASSROOM_ROSTER)
