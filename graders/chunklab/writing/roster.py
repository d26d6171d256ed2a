"""The class list: who should have handed something in, and their ids in the LMS.

A roster is a CSV file with a header row, such as the gradebook export of
Canvas (`Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`) or the
participants or grades export of Moodle (`First name`, `Last name`,
`ID number`, `Email address`). One column holds the names the submissions go
by (a student folder's name, or a file's name without its lesson id); it is
matched without regard to case, and an email address also matches by the
part before the `@`.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from chunklab.errors import UsageError
from chunklab.writing.gradebook import NO_SUBMISSION, NOT_IN_ROSTER, Entry

# Tried in this order when no column is named: Canvas's export, then Moodle's, then plain names.
STUDENT_COLUMNS = ("SIS Login ID", "Username", "Email address", "login_id", "username", "email")
ID_COLUMNS = ("ID", "ID number", "SIS User ID", "id", "idnumber")
NAME_COLUMNS = ("Student", "Full name", "name")
# Canvas's export puts the assignments' points in a second row, under this name.
CANVAS_POINTS_ROW = "Points Possible"


@dataclass(frozen=True)
class RosterStudent:
    key: str
    lms_id: str
    name: str
    # The row as exported, column by column, for the LMS file.
    fields: tuple[tuple[str, str], ...]

    def field(self, column: str) -> str:
        return dict(self.fields).get(column, "")


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

    def find(self, student: str) -> RosterStudent | None:
        wanted = normal(student)
        for listed in self.students:
            if wanted in keys_of(listed.key):
                return listed
        return None


def normal(text: str) -> str:
    return text.strip().casefold()


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
    for row in rows[1:]:
        fields = dict(zip(header, (cell.strip() for cell in row), strict=False))
        if not fields.get(key) or CANVAS_POINTS_ROW in fields.get("Student", ""):
            continue
        full_name = fields.get(name, "") if name else ""
        if not full_name and "First name" in fields:
            full_name = f"{fields['First name']} {fields.get('Last name', '')}".strip()
        students.append(
            RosterStudent(
                key=fields[key],
                lms_id=fields.get(lms_id, "") if lms_id else "",
                name=full_name,
                fields=tuple(fields.items()),
            )
        )
    return Roster(tuple(header), tuple(students))


def with_roster(
    entries: Sequence[Entry], roster: Roster, lessons: Sequence[str], max_scores: dict[str, float]
) -> list[Entry]:
    """The entries, each listed student under the roster's own name, plus `missing` ones.

    A listed student without a submission in a lesson gets 0 and status
    `missing`; a submission whose student the roster does not list is flagged.
    """
    result: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        listed = roster.find(entry.student)
        if listed is None:
            result.append(replace(entry, roster=NOT_IN_ROSTER))
            continue
        result.append(replace(entry, student=listed.key))
        seen.add((listed.key, entry.lesson))
    for listed in roster.students:
        for lesson in lessons:
            if (listed.key, lesson) not in seen:
                result.append(
                    Entry(
                        student=listed.key,
                        lesson=lesson,
                        score=0.0,
                        max_score=max_scores.get(lesson, 0.0),
                        status="missing",
                        first_error=NO_SUBMISSION,
                    )
                )
    return result
