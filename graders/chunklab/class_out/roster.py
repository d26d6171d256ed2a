"""The class list: who should have handed something in, and their ids in the LMS.

A roster is a CSV file with a header row, such as the gradebook export of
Canvas (`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`) or the
participants or grades export of Moodle (`First name`, `Last name`,
`ID number`, `Email address`). One column holds the names the submissions go
by (a student folder's name, or a file's name without its lesson id); it is
matched as `identity.same_student` says, and an email address also
matches by the part before the `@`.

A submission read from an LMS download carries the id that LMS knows the
student by, and is matched on it: Canvas's user id (the export's `ID`),
Moodle's participant id (the grading worksheet's `Identifier`, `Participant
NNN`) or a GitHub username (GitHub Classroom's `github_username`). Where the
roster has no such column (a Moodle gradebook export), the full name is
matched instead, by the same rule.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from chunklab.class_out.gradebook import (
    NO_SUBMISSION,
    NOT_GRADED,
    NOT_GRADED_YET,
    NOT_IN_ROSTER,
    Entry,
    best_entries,
)
from chunklab.errors import UsageError
from chunklab.identity import same_student
from chunklab.pipeline.records import NotGraded

# Tried in this order when no column is named: Canvas's export, then Moodle's, then plain names.
STUDENT_COLUMNS = (
    "SIS Login ID",
    "Username",
    "Email address",
    "login_id",
    "username",
    "email",
    "identifier",
)
ID_COLUMNS = ("ID", "ID number", "SIS User ID", "id", "idnumber")
NAME_COLUMNS = ("Student", "Full name", "name")
# Canvas's export puts the assignments' points in a second row, under this name.
CANVAS_POINTS_ROW = "Points Possible"
# Canvas lists its Test Student in every export: matched if it handed in, never `missing`.
CANVAS_TEST_STUDENT = ("Student, Test", "Test Student")
# The columns that hold the id an LMS download carries (see the module's text).
DOWNLOAD_ID_COLUMNS = ("ID", "Identifier", "github_username")
# Moodle's worksheet writes a participant id as "Participant 1234".
MOODLE_PARTICIPANT = "Participant "


@dataclass(frozen=True)
class RosterStudent:
    key: str
    lms_id: str
    name: str
    # The row as exported, column by column, for the LMS file.
    fields: tuple[tuple[str, str], ...]
    # The id an LMS download carries for this student, when the roster has it.
    download_id: str = ""
    test_student: bool = False

    def field(self, column: str) -> str:
        """The student's cell in `column`; a header spelt in another case counts too
        (Moodle's worksheet says `Maximum grade` or `Maximum Grade` by version)."""
        cells = dict(self.fields)
        if column in cells:
            return cells[column]
        wanted = column.casefold()
        return next((cell for name, cell in cells.items() if name.casefold() == wanted), "")


@dataclass(frozen=True)
class RosterColumns:
    """Which roster columns to use; None means: the first default that the file has."""

    student: str | None = None
    lms_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class Roster:
    columns: tuple[str, ...]
    students: tuple[RosterStudent, ...]
    # Canvas's `Points Possible` row: each assignment column's points, as exported.
    points: tuple[tuple[str, str], ...] = ()

    def points_of(self, column: str) -> float | None:
        try:
            return float(dict(self.points).get(column, ""))
        except ValueError:
            return None

    @property
    def has_download_ids(self) -> bool:
        return any(listed.download_id for listed in self.students)

    def find(self, student: str, lms_id: str = "") -> RosterStudent | None:
        """The listed student: by the download's id when both have one, else by name."""
        if lms_id and self.has_download_ids:
            wanted = normal(lms_id)
            return next((s for s in self.students if normal(s.download_id) == wanted), None)
        wanted = normal(student)
        found = [listed for listed in self.students if wanted in keys_of(listed.key)]
        if not found and lms_id:  # a download's name is the LMS's full name (Moodle's folders)
            as_named = as_moodle_names(wanted)
            found = [s for s in self.students if s.name and as_moodle_names(s.name) == as_named]
        # A name two listed students share tells neither: matched to no one, so it is said.
        return found[0] if len(found) == 1 else None


def normal(text: str) -> str:
    return same_student(text)


# What Moodle drops from a name when it makes a download's folder name of it (PARAM_FILE in
# `clean_param`: control characters and & < > " ` | ' : \ /): "Seán O'Brien" is "Seán OBrien".
MOODLE_DROPS = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")


def as_moodle_names(name: str) -> str:
    """A full name as Moodle writes it in a folder name, compared as names are."""
    return normal(MOODLE_DROPS.sub("", name))


def download_id_of(fields: dict[str, str]) -> str:
    for column in DOWNLOAD_ID_COLUMNS:
        value = fields.get(column, "")
        if value:
            return value.removeprefix(MOODLE_PARTICIPANT)
    return ""


def keys_of(value: str) -> set[str]:
    key = normal(value)
    return {key, key.split("@", 1)[0]} if "@" in key else {key}


def pick_column(
    header: Sequence[str], named: str | None, defaults: Sequence[str], what: str
) -> str:
    if named is not None:
        if named not in header:
            raise UsageError(
                f"the roster has no column {named!r} for {what}; its columns are: "
                + ", ".join(header)
            )
        return named
    for column in defaults:
        if column in header:
            return column
    return ""


def read_roster(path: Path, chosen: RosterColumns = RosterColumns()) -> Roster:
    """Read a roster CSV; a usage error names what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read the roster {path}: {error}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise UsageError(f"the roster {path} is empty; it needs a header row and one row a student")
    header = [cell.strip() for cell in rows[0]]
    key = pick_column(header, chosen.student, STUDENT_COLUMNS, "the students' names")
    if not key:
        raise UsageError(
            f"the roster {path} has none of the columns {', '.join(STUDENT_COLUMNS)}; "
            "name the column holding the students' names with --roster-student"
        )
    lms_id = pick_column(header, chosen.lms_id, ID_COLUMNS, "the LMS id")
    name = pick_column(header, chosen.name, NAME_COLUMNS, "the students' full names")
    students = []
    points: tuple[tuple[str, str], ...] = ()
    for row in rows[1:]:
        fields = dict(zip(header, (cell.strip() for cell in row), strict=False))
        if CANVAS_POINTS_ROW in fields.get("Student", ""):
            points = tuple(fields.items())
            continue
        # A row without the names column (no SIS login in Canvas) goes by its LMS id.
        student_key = fields.get(key) or (fields.get(lms_id, "") if lms_id else "")
        if not student_key:
            continue
        full_name = fields.get(name, "") if name else ""
        if not full_name and "First name" in fields:
            full_name = f"{fields['First name']} {fields.get('Last name', '')}".strip()
        students.append(
            RosterStudent(
                key=student_key,
                lms_id=fields.get(lms_id, "") if lms_id else "",
                name=full_name,
                fields=tuple(fields.items()),
                download_id=download_id_of(fields),
                test_student=fields.get("Student", "") in CANVAS_TEST_STUDENT,
            )
        )
    return Roster(tuple(header), tuple(students), points)


def with_roster(
    entries: Sequence[Entry],
    roster: Roster,
    lessons: Sequence[str],
    max_scores: dict[str, float],
    not_graded: Sequence[NotGraded] = (),
) -> list[Entry]:
    """One entry per student and lesson under the roster's own names, plus `missing` ones.

    Each submission is matched to the roster first, then a student's several
    submissions of a lesson are merged (the best kept, `best_entries`), so two
    spellings of one listed student never count as two. A listed student
    without a submission in a lesson gets status `missing`, or `not_graded`
    when a submission of theirs in it (or of a lesson not yet known) was found
    but the run was interrupted before it was graded; a submission whose
    student the roster does not list is flagged.
    """
    best = best_entries([matched(entry, roster) for entry in entries])
    seen = {(entry.student, entry.lesson) for entry in best if entry.roster != NOT_IN_ROSTER}
    waiting = set()
    for left in not_graded:
        listed = roster.find(left.student, left.lms_id)
        if listed is not None:
            waiting |= {
                (listed.key, lesson) for lesson in ([left.lesson] if left.lesson else lessons)
            }
    missing = [
        Entry(
            student=listed.key,
            lesson=lesson,
            score=0.0,
            max_score=max_scores.get(lesson, 0.0),
            status=NOT_GRADED if (listed.key, lesson) in waiting else "missing",
            first_error=NOT_GRADED_YET if (listed.key, lesson) in waiting else NO_SUBMISSION,
            lms_id=listed.download_id,
        )
        for listed in roster.students
        if not listed.test_student
        for lesson in lessons
        if (listed.key, lesson) not in seen
    ]
    return best + missing


def matched(entry: Entry, roster: Roster) -> Entry:
    """The entry under its roster student's key, or flagged as not in the roster."""
    listed = roster.find(entry.student, entry.lms_id)
    if listed is None:
        return replace(entry, roster=NOT_IN_ROSTER)
    return replace(entry, student=listed.key)
