"""The wide gradebook in the import format of an LMS: Canvas or Moodle.

Canvas imports a CSV whose first columns are `Student`, `ID`, `SIS User ID`,
`SIS Login ID` and `Section` (it matches a row to a student by one of the
ids), then one column per assignment; an optional second row, `Points
Possible`, gives each assignment's points. Moodle's CSV grade import maps
one column to a user field (email address, username or ID number) and each
other column to a grade item, so its file starts with the roster's
identifying columns, then one column per lesson. With a roster, a student
it does not list is left out: the LMS could not place the row.
"""

from __future__ import annotations

from collections.abc import Sequence

from chunklab.writing.csv_file import csv_text
from chunklab.writing.gradebook import Entry, by_student, lessons_of, number
from chunklab.writing.roster import CANVAS_POINTS_ROW, Roster, RosterStudent

CANVAS_ID_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_ID_COLUMNS = ("First name", "Last name", "ID number", "Email address", "Username")


def lms_file_name(lms: str) -> str:
    return f"gradebook_{lms}.csv"


def scores_of(entries: dict[str, Entry], lessons: Sequence[str]) -> list[str]:
    return [number(entries[lesson].score) if lesson in entries else "0" for lesson in lessons]


def canvas_ids(student: str, listed: RosterStudent | None) -> list[str]:
    if listed is None:
        # Without a roster row, the student's name is the best guess at a login id.
        return [student, "", "", student, ""]
    return [listed.name or listed.field("Student") or student, listed.lms_id] + [
        listed.field(column) for column in CANVAS_ID_COLUMNS[2:]
    ]


def canvas_csv(
    entries: Sequence[Entry], roster: Roster | None, max_scores: dict[str, float]
) -> str:
    lessons = lessons_of(entries)
    rows: list[list[str]] = [
        [CANVAS_POINTS_ROW, "", "", "", ""] + [number(max_scores.get(lesson)) for lesson in lessons]
    ]
    for student, results in by_student(entries).items():
        listed = roster.find(student) if roster else None
        if roster is None or listed is not None:  # the LMS cannot place a student it lacks
            rows.append(canvas_ids(student, listed) + scores_of(results, lessons))
    return csv_text((*CANVAS_ID_COLUMNS, *lessons), rows)


def moodle_csv(entries: Sequence[Entry], roster: Roster | None) -> str:
    lessons = lessons_of(entries)
    known = [c for c in MOODLE_ID_COLUMNS if roster and c in roster.columns]
    columns = known or ["Username"]
    rows = []
    for student, results in by_student(entries).items():
        listed = roster.find(student) if roster else None
        if roster is not None and listed is None:
            continue
        ids = [listed.field(c) if listed and known else student for c in columns]
        rows.append(ids + scores_of(results, lessons))
    return csv_text((*columns, *lessons), rows)


def lms_csv(
    lms: str, entries: Sequence[Entry], roster: Roster | None, max_scores: dict[str, float]
) -> str:
    """The wide gradebook as `lms` imports it."""
    if lms == "canvas":
        return canvas_csv(entries, roster, max_scores)
    return moodle_csv(entries, roster)
