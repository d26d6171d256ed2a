"""An LMS download as it comes, folder or zip: whose each submission is, by the key the LMS wrote.

The names, as each LMS writes them (from its own source):

- Canvas, "Download Submissions" (`lib/content_zipper.rb`): one flat list of
  files `<sortable name, lower case, non-word characters removed>[_LATE]_<user
  id>_<attachment id>_<file name>`; a student who uploaded several files (or a
  zip) has several; `anon_<id>` stands for the name when grading is anonymous.
  The user id is the `ID` column of the gradebook export.
- Moodle, "Download all submissions" (`mod/assign`): one folder per student,
  `<full name>_<participant id>_assignsubmission_file` (with a trailing `_`
  before Moodle 4.1), the student's files inside as uploaded.
- GitHub Classroom, `gh classroom clone student-repos`: `<assignment>-submissions/
  <assignment>-<username>/`, each a copy of the student bundle.

Each submission is tied to that key, so the roster is matched on it and a
name is never mangled into one. Canvas and Moodle files are copied into a
staging folder, one folder per student, under their plain names
(`lms_files`), the latest of several uploads of a file only. A repository
copy is graded in place: for each lesson, the stub or notebook the student
changed; one left as it was handed out is `not_attempted`.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from chunklab.errors import SubmissionError, UsageError
from chunklab.identity import same_student
from chunklab.kit import Kit
from chunklab.lessons import LESSONS, lesson_named_in
from chunklab.reading.candidates import FolderLook, code_cells, largest_file
from chunklab.reading.folder import OpenFolder
from chunklab.reading.lms_files import (
    JUNK,
    not_a_submission,
    not_graded,
    plain_name,
    unpack,
)
from chunklab.reading.notebook_file import load_json
from chunklab.reading.read import SubmissionPath, folder_file, student_folder
from chunklab.reading.safe_file import read_regular_file
from chunklab.reading.student import MOST_FOLDER_ENTRIES
from chunklab.scoring.report import Problem

LAYOUTS = ("canvas", "moodle", "github-classroom")
CANVAS_FILE = re.compile(
    r"(?:(?P<anon_late>LATE)_)?(?:anon_(?P<anon>[^\W_]+)|(?P<name>.+?)(?P<late>_LATE)?_(?P<user>\d+))"
    r"_(?:(?P<attachment>\d+)_(?P<file>.+)|(?P<entry>text|link)\.html)",
    re.DOTALL,
)
MOODLE_FOLDER = re.compile(r"(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?")
MOODLE_FILE = re.compile(
    r"(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)"
)
RELEASE_MARKER = ".chunklab-release"
LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "github-classroom": "GitHub Classroom"}


@dataclass(frozen=True)
class Handed:
    """One submission of a download, and what the download told about it."""

    item: SubmissionPath
    # The id the LMS knows the student by, and the name the download gives.
    lms_id: str
    name: str
    late: bool = False
    # Where the student's feedback goes in the LMS's bulk feedback upload.
    feedback_as: str = ""
    warnings: tuple[Problem, ...] = ()
    # A repository copy's file exactly as it was handed out: nothing to grade.
    untouched: bool = False
    # Nothing that could be graded was handed in (only other files, or none).
    no_code: bool = False


@dataclass
class Download:
    layout: str
    detected: bool
    handed: list[Handed] = field(default_factory=list)
    # Entries of the download that belong to no student, said to the person grading.
    skipped: list[str] = field(default_factory=list)
    # What its files' names are shown after: "submissions.zip: ", "section_a/".
    named: str = ""

    @property
    def said(self) -> str:
        how = "detected; --from chooses" if self.detected else "as --from said"
        return f"read as a {LMS_NAMES[self.layout]} download ({how})"


def entries_of(folder: Path) -> list[os.DirEntry[str]]:
    try:
        return sorted(
            (e for e in os.scandir(folder) if e.name not in JUNK and not e.name.startswith(".")),
            key=lambda e: e.name,
        )
    except OSError as error:
        raise UsageError(f"{folder} cannot be read: {error.strerror}") from None


def is_repository_copy(folder: Path) -> bool:
    return (folder / RELEASE_MARKER).is_file() or (
        (folder / "exercises").is_dir() and (folder / "notebooks").is_dir()
    )


def detect(folder: Path) -> str | None:
    """The LMS whose download `folder` is: every entry named as that LMS names them."""
    entries = entries_of(folder)
    folders = [e for e in entries if e.is_dir(follow_symlinks=False)]
    files = [e for e in entries if not e.is_dir(follow_symlinks=False)]
    if folders and all(is_repository_copy(Path(e.path)) for e in folders):
        return "github-classroom"
    if folders and all(MOODLE_FOLDER.fullmatch(e.name) for e in folders):
        return "moodle"
    if files and not folders and all(MOODLE_FILE.fullmatch(e.name) for e in files):
        return "moodle"
    if files and not folders and all(CANVAS_FILE.fullmatch(e.name) for e in files):
        return "canvas"
    return None


def read_download(
    folder: Path,
    layout: str,
    detected: bool,
    lesson_id: str | None,
    limit: int,
    staging: Path,
    kit: Kit,
    named: str = "",
) -> Download:
    """The download in `folder` (a zip already unpacked), read as `layout` names it.

    Its files are shown (in reports, warnings and the pages students read) by their
    names in the download, after `named` ("submissions.zip: ", "section_a/"): where
    the grading machine keeps them is nobody's business but the grader's.
    """
    download = Download(layout, detected, named=named or f"{folder.name}/")
    if not folder.is_dir():
        raise UsageError(f"--from {layout} reads a download folder or zip, not {folder}")
    if layout == "canvas":
        download.handed = list(canvas_download(folder, lesson_id, limit, staging, download))
    elif layout == "moodle":
        download.handed = list(moodle_download(folder, lesson_id, limit, staging, download))
    else:
        download.handed = list(classroom_download(folder, lesson_id, limit, kit))
    download.handed = of_the_assignment(download.handed)
    return download


def of_the_assignment(handed: list[Handed]) -> list[Handed]:
    """A download is one assignment: a student who handed in no code, under names that
    tell no lesson, is reported for the one lesson every file of code names, if they do."""
    named = {
        lesson.id
        for each in handed
        if not each.no_code
        for lesson in [lesson_named_in(each.item.display.rsplit("/", 1)[-1])]
        if lesson is not None
    }
    if len(named) != 1:
        return handed
    lesson = next(iter(named))
    return [
        replace(each, item=replace(each.item, lesson=lesson))
        if each.no_code and each.item.lesson is None
        else each
        for each in handed
    ]


def unzip_download(archive: Path, into: Path, limit: int) -> None:
    """A downloaded zip, unpacked within bounds: an instructor's file, its members students'."""
    try:
        data = archive.read_bytes()
    except OSError as error:
        raise UsageError(f"{archive} cannot be read: {error.strerror}") from None
    members, problems = unpack(
        archive.name, data, 100 * MOST_FOLDER_ENTRIES, 4 * largest_file(archive, limit)
    )
    if problems and not members:
        raise UsageError(problems[0].message)
    for member in members:
        target = into / member.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(member.data)


@dataclass
class Staged:
    """One student's files as they are copied into the staging folder."""

    folder: Path
    # Plain name -> (copy number, order, original shown to a person, data).
    files: dict[str, tuple[tuple[int, int], str, bytes]] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    # The original each plain name came from, for the report.
    originals: dict[str, str] = field(default_factory=dict)
    # Everything handed in, graded or not, as shown to a person.
    handed: list[str] = field(default_factory=list)
    written: bool = False

    def add(self, original: str, shown: str, data: bytes, order: int, limit: int) -> None:
        self.handed.append(shown)
        plain = plain_name(original)
        if plain is None:
            self.warnings.append(not_a_submission(shown))
            return
        if plain.name.endswith(".zip"):
            members, problems = unpack(
                shown, data, MOST_FOLDER_ENTRIES, largest_file(Path("a.ipynb"), limit)
            )
            self.warnings += problems
            for member in members:
                inner = Path(member.name).name
                if inner.lower().endswith(".zip"):
                    self.warnings.append(
                        not_graded(
                            f"{shown}: {member.name}",
                            "a zip inside a zip is not opened; zip your files once",
                        )
                    )
                    continue
                self.add(inner, f"{shown}: {member.name}", member.data, order, limit)
            return
        if plain.note:
            self.warnings.append(Problem("lms_file", plain.note))
        rank = (plain.copy, order)
        earlier = self.files.get(plain.name)
        if earlier is not None:
            older, newer = sorted([earlier[:2], (rank, shown)])
            self.warnings.append(
                not_graded(
                    older[1], f"{newer[1]} is a later upload of the same file, and is graded"
                )
            )
            if earlier[0] > rank:
                return
        self.files[plain.name] = (rank, shown, data)
        self.originals[plain.name] = shown

    def write(self) -> None:
        if self.written:
            return
        self.written = True
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, (_, _, data) in self.files.items():
            (self.folder / name).write_bytes(data)


def staged_items(
    staged: Staged, lesson_id: str | None, limit: int, student: str
) -> list[SubmissionPath]:
    """The submissions of a staged folder, shown under the names the student gave the files."""
    staged.write()
    items = []
    for item in student_folder(staged.folder, lesson_id, limit):
        graded = graded_name(staged.folder, item.lesson or lesson_id, limit)
        shown = staged.originals.get(graded) or next(
            iter(staged.originals.values()), str(staged.folder)
        )
        items.append(replace(item, display=shown, student=student))
    return items


def graded_name(folder: Path, lesson_id: str | None, limit: int) -> str:
    """The name of the file reading the folder will grade for the lesson ("" if none is)."""
    try:
        with OpenFolder(folder) as opened:
            return folder_file(opened, lesson_id, FolderLook(limit, opened)).name
    except Exception:  # the reading itself says why, on the submission's report
        return ""


def copy_in(path: Path, limit: int) -> bytes:
    """A file of the download, read as a submission is: never through a link, within bounds."""
    return read_regular_file(path, 4 * largest_file(path, limit))


@dataclass
class CanvasStudent:
    staged: Staged
    name: str
    late: bool
    # Each file's attachment id: Canvas attaches a feedback file named with a graded one's.
    attachments: dict[str, str] = field(default_factory=dict)

    def graded_attachment(self, graded: str) -> str:
        """The attachment id of the upload the file `graded` came from (else the first one's):
        Canvas attaches the feedback file to that upload. A file of a zip upload is shown
        after the upload's own name ("upload.zip: hw/char_chunk.py")."""
        shown = self.staged.originals.get(graded) or next(iter(self.staged.originals.values()), "")
        upload = next((name for name in self.attachments if shown.startswith(name)), "")
        return self.attachments.get(upload) or next(iter(self.attachments.values()), "0")


def canvas_download(
    folder: Path, lesson_id: str | None, limit: int, staging: Path, download: Download
) -> Iterator[Handed]:
    students: dict[str, CanvasStudent] = {}
    for order, entry in enumerate(entries_of(folder)):
        shown = f"{download.named}{entry.name}"
        parts = CANVAS_FILE.fullmatch(entry.name)
        if parts is None or entry.is_dir(follow_symlinks=False):
            download.skipped.append(
                f"{shown} is not graded: its name is not one Canvas writes; grade it on its own"
            )
            continue
        key = parts["user"] or f"anon_{parts['anon']}"
        late = bool(parts["late"] or parts["anon_late"])
        student = students.setdefault(
            key, CanvasStudent(Staged(staging / safe_folder(key)), parts["name"] or key, late)
        )
        if parts["entry"]:
            student.staged.warnings.append(
                not_graded(
                    shown,
                    f"it is a {parts['entry']} entry, not a file; "
                    "ask for a .py file or notebook upload",
                )
            )
            continue
        student.attachments[shown] = parts["attachment"]
        add_copy(student.staged, folder / entry.name, parts["file"], shown, order, limit)
    for key, student in students.items():
        mark = "_LATE" if student.late else ""
        student.staged.write()
        attachment = student.graded_attachment(graded_name(student.staged.folder, lesson_id, limit))
        feedback = f"{student.name}{mark}_{key}_{attachment}_feedback.html"
        yield from handed_of(
            student.staged, lesson_id, limit, key, student.name, student.late, feedback
        )


def told_apart(handed: dict[int, Handed]) -> dict[int, Handed]:
    """Every download's submissions of a run, a name two LMS ids share given the id too:
    `John Smith (1002)`.

    The id is the student. Two students of one name, in one download or in two graded
    together, are two students everywhere the name stands for one (gradebooks,
    feedback pages, a roster matched by name).
    """
    names = {each.lms_id: each.name for each in handed.values()}
    count = Counter(same_student(name) for name in names.values())

    def shown(each: Handed) -> Handed:
        if count[same_student(each.name)] == 1:
            return each
        name = f"{each.name} ({each.lms_id})"
        return replace(each, name=name, item=replace(each.item, student=name))

    return {number: shown(each) for number, each in handed.items()}


def handed_of(
    staged: Staged,
    lesson_id: str | None,
    limit: int,
    key: str,
    name: str,
    late: bool,
    feedback: str,
) -> Iterator[Handed]:
    if not staged.files:
        # Nothing to grade: said on a report of its own, for the lesson what was handed in
        # names, so the student is neither `missing` unseen nor counted twice.
        staged.write()
        shown = ", ".join(staged.handed) or f"what {name} handed in"
        named = {lesson.id for lesson in map(lesson_named_in, staged.handed) if lesson}
        lesson = lesson_id or (next(iter(named)) if len(named) == 1 else None)
        item = SubmissionPath(staged.folder, shown, name, lesson)
        yield Handed(item, key, name, late, feedback, tuple(staged.warnings), no_code=True)
        return
    for item in staged_items(staged, lesson_id, limit, name):
        yield Handed(item, key, name, late, feedback, tuple(staged.warnings))


def safe_folder(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", key)[:60] or "student"


def moodle_download(
    folder: Path, lesson_id: str | None, limit: int, staging: Path, download: Download
) -> Iterator[Handed]:
    students: dict[str, tuple[Staged, str, str]] = {}
    for order, entry in enumerate(entries_of(folder)):
        shown = f"{download.named}{entry.name}"
        is_folder = entry.is_dir(follow_symlinks=False)
        parts = (MOODLE_FOLDER if is_folder else MOODLE_FILE).fullmatch(entry.name)
        if parts is None:
            download.skipped.append(
                f"{shown} is not graded: its name is not one Moodle writes; grade it on its own"
            )
            continue
        key, name = parts["id"], parts["name"]
        feedback = (
            f"{entry.name}/feedback.html"
            if is_folder
            else f"{name}_{key}_assignsubmission_file_feedback.html"
        )
        if key not in students:
            students[key] = (Staged(staging / safe_folder(key)), name, feedback)
        staged = students[key][0]
        if parts["plugin"] != "file":
            staged.warnings.append(
                not_graded(
                    shown,
                    f"it is Moodle's {parts['plugin']} "
                    "submission, not a file; ask for a file upload",
                )
            )
            continue
        if not is_folder:
            add_copy(staged, folder / entry.name, parts["file"], shown, order, limit)
            continue
        for number, (path, relative) in enumerate(walk(folder / entry.name)):
            add_copy(staged, path, path.name, f"{shown}/{relative}", order * 1000 + number, limit)
    for key, (staged, name, feedback) in students.items():
        yield from handed_of(staged, lesson_id, limit, key, name, False, feedback)


def add_copy(staged: Staged, path: Path, name: str, shown: str, order: int, limit: int) -> None:
    try:
        data = copy_in(path, limit)
    except SubmissionError as error:
        staged.warnings.append(not_graded(shown, str(error)))
        return
    staged.add(name, shown, data, order, limit)


def walk(folder: Path) -> Iterator[tuple[Path, str]]:
    """The regular files under a student's folder, links left out; at most a folder's entries."""
    waiting, seen = [folder], 0
    while waiting:
        current = waiting.pop()
        for entry in entries_of(current):
            seen += 1
            if seen > MOST_FOLDER_ENTRIES:
                return
            mode = entry.stat(follow_symlinks=False).st_mode
            path = Path(entry.path)
            if stat.S_ISDIR(mode):
                waiting.append(path)
            else:  # links and special files are refused when copied, and the student told
                yield path, path.relative_to(folder).as_posix()


def classroom_download(
    folder: Path, lesson_id: str | None, limit: int, kit: Kit
) -> Iterator[Handed]:
    copies = [Path(e.path) for e in entries_of(folder) if e.is_dir(follow_symlinks=False)]
    prefix = assignment_prefix(folder, [c.name for c in copies])
    lessons = [lesson_id] if lesson_id else list(LESSONS)
    for copy in copies:
        username = copy.name.removeprefix(prefix) or copy.name
        for lesson in lessons:
            yield from worked_on(copy, lesson, username, limit, kit)


def assignment_prefix(folder: Path, names: list[str]) -> str:
    """`<assignment>-` before each username: from the clone's folder name, else what all share."""
    if folder.name.endswith("-submissions"):
        return folder.name.removesuffix("-submissions") + "-"
    if len(names) < 2:
        return ""
    shared = os.path.commonprefix(names)
    return shared[: shared.rfind("-") + 1]


def worked_on(copy: Path, lesson: str, username: str, limit: int, kit: Kit) -> Iterator[Handed]:
    """The lesson's files in a repository copy that the student changed, else its untouched one."""
    given = LESSONS[lesson]
    candidates = [
        path
        for path in (
            copy / "exercises" / given.file_name,
            copy / "notebooks" / f"{lesson}.ipynb",
            copy / given.file_name,
            copy / f"{lesson}.ipynb",
        )
        if os.path.lexists(path)
    ]
    changed = [path for path in candidates if not as_handed_out(path, lesson, limit, kit)]
    for path in changed or candidates[:1]:
        item = SubmissionPath(path, str(path), username, lesson)
        yield Handed(item, username, username, untouched=not changed)


def as_handed_out(path: Path, lesson: str, limit: int, kit: Kit) -> bool:
    """Whether `path` holds the code it was handed out with (outputs of a run do not count)."""
    try:
        raw = read_regular_file(path, largest_file(path, limit))
        if path.suffix == ".py":
            given = kit.exercise(LESSONS[lesson]).read_bytes()
            return raw.replace(b"\r\n", b"\n") == given.replace(b"\r\n", b"\n")
        given_cells = code_cells(load_json(path, kit.notebook(LESSONS[lesson]).read_bytes()))
        return code_cells(load_json(path, raw)) == given_cells
    except (SubmissionError, OSError):
        return False  # what cannot be read is graded, so its report says why
