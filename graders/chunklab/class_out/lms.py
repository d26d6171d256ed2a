"""The grades in the import format of an LMS: Canvas or Moodle, into the assignment that exists.

Canvas imports a CSV whose first columns are `Student`, `ID`, `SIS User ID`,
`SIS Login ID` (and `Integration ID`), `Section` (it matches a row to a
student by one of the ids), then one column per assignment, headed `Title
(id)` as its gradebook export has it; an optional second row, `Points
Possible`, gives each assignment's points. Moodle's assignment takes back
its own grading worksheet (`Identifier`, `Grade`, `Last modified (grade)`,
`Feedback comments` are the columns its importer maps by name); Moodle's
gradebook import maps one column to a user field and each other column to a
grade item.

Only the assignment's column is filled. A row is written for each roster
student; a cell is empty, never 0, for a student not graded in this run or
matched to no submission, and 0 for one with nothing handed in only when
`missing_as_zero` is asked. A submission the roster does not list has no
row: the LMS could not place it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from chunklab.class_out.class_options import LmsOptions
from chunklab.class_out.csv_file import csv_text
from chunklab.class_out.gradebook import NOT_GRADED, NOTHING_HANDED_IN, Entry, lessons_of, number
from chunklab.class_out.roster import CANVAS_POINTS_ROW, Roster, RosterStudent
from chunklab.errors import UsageError
from chunklab.identity import same_student
from chunklab.lessons import LESSONS

CANVAS_ID_COLUMNS = (
    "Student",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Integration ID",
    "Section",
)
# Written without a roster: the columns Canvas's import needs.
CANVAS_PLAIN_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_ID_COLUMNS = ("First name", "Last name", "ID number", "Email address", "Username")
# Moodle's grading worksheet (assignfeedback_offline): the columns its importer reads.
WORKSHEET_ID = "Identifier"
WORKSHEET_GRADE = "Grade"
WORKSHEET_MAXIMUM = "Maximum grade"
WORKSHEET_MODIFIED = "Last modified (grade)"
WORKSHEET_FEEDBACK = "Feedback comments"
# Decimals of a grade scaled to the LMS assignment's points.
POINT_DIGITS = 2


def lms_file_name(lms: str) -> str:
    return f"gradebook_{lms}.csv"


def plain_title(column: str) -> str:
    """A gradebook column's title as a lesson id would read: `Char chunk (1234)` is `char_chunk`."""
    title = re.sub(r"\s*\((?:\d+|Real|Letter|Percentage)\)\s*$", "", column)
    title = re.sub(r"^(?:Assignment|Quiz)\s*:\s*", "", title)
    return re.sub(r"\W+", "_", same_student(title)).strip("_")


def assignment_columns(
    roster: Roster | None, lessons: Sequence[str], chosen: str | None
) -> tuple[dict[str, str], list[str]]:
    """The column each lesson's grade goes in, and what a person should know about the choice."""
    columns = roster.columns if roster else ()
    if chosen is not None:
        if len(lessons) > 1:
            raise UsageError(
                f"--assignment names one column, but {', '.join(lessons)} were graded; "
                "grade one lesson at a time (--lesson)"
            )
        if roster is not None and chosen not in columns:
            raise UsageError(
                f"the roster has no assignment column {chosen!r}; its columns are: "
                + ", ".join(columns)
            )
        return {lesson: chosen for lesson in lessons}, []
    found: dict[str, str] = {}
    notes = []
    for lesson in lessons:
        titles = {lesson, plain_title(LESSONS[lesson].title)}
        matching = [c for c in columns if plain_title(c) in titles]
        if len(matching) > 1:
            raise UsageError(
                f"several roster columns could be the assignment {lesson}: "
                f"{', '.join(matching)}; choose one with --assignment"
            )
        found[lesson] = matching[0] if matching else lesson
        if roster is not None and not matching:
            notes.append(
                f"the roster has no column for the assignment {lesson}; its grades are in a new "
                f"column {lesson!r} (name the assignment's column with --assignment)"
            )
    return found, notes


@dataclass(frozen=True)
class Grades:
    """Each student's entries, and how a cell is filled."""

    entries: dict[tuple[str, str], Entry]
    points: dict[str, float | None]
    options: LmsOptions

    def cell(self, student: str, lesson: str) -> str:
        entry = self.entries.get((same_student(student), lesson))
        if entry is None or entry.status == NOT_GRADED:
            return ""  # not graded in this run, or its submission matched nobody
        if entry.status in NOTHING_HANDED_IN:
            return "0" if self.options.missing_as_zero else ""
        points = self.points.get(lesson)
        if points is None or not entry.max_score:
            return number(entry.score)
        return number(round(entry.score / entry.max_score * points, POINT_DIGITS))


def graded_for(entries: Sequence[Entry], roster: Roster | None) -> dict[tuple[str, str], Entry]:
    """The entries an LMS can place: all of them without a roster, else the roster's students'."""
    return {
        (same_student(e.student), e.lesson): e
        for e in entries
        if roster is None or not e.roster  # with_roster flagged those it could not match
    }


def points_of(
    lessons: Sequence[str],
    columns: dict[str, str],
    roster: Roster | None,
    options: LmsOptions,
    max_scores: dict[str, float],
) -> dict[str, float | None]:
    """Each lesson's points in the LMS: --points, else the roster's, else the kit's own."""
    found: dict[str, float | None] = {}
    for lesson in lessons:
        listed = roster.points_of(columns[lesson]) if roster else None
        found[lesson] = options.points or listed or max_scores.get(lesson)
    return found


def unscaled(
    lessons: Sequence[str],
    roster: Roster | None,
    columns: dict[str, str],
    options: LmsOptions,
    max_scores: dict[str, float],
) -> list[str]:
    """A note for each lesson written in the kit's own points: nothing said what to scale to."""
    if options.points:
        return []
    return [
        f"the LMS file gives {lesson} in the kit's own points (of {max_scores[lesson]:g}): "
        "the roster says none for it; --points N scales every grade to N"
        for lesson in lessons
        if lesson in max_scores and not (roster and roster.points_of(columns[lesson]))
    ]


def canvas_csv(
    entries: Sequence[Entry],
    roster: Roster | None,
    max_scores: dict[str, float],
    options: LmsOptions = LmsOptions(),
) -> tuple[str, list[str]]:
    """Canvas's gradebook import: its id columns, the Points Possible row, the assignments."""
    lessons = lessons_of(entries)
    columns, notes = assignment_columns(roster, lessons, options.assignment)
    points = points_of(lessons, columns, roster, options, max_scores)
    notes += unscaled(lessons, roster, columns, options, max_scores)
    grades = Grades(graded_for(entries, roster), points, options)
    ids = [c for c in CANVAS_ID_COLUMNS if roster and c in roster.columns] or list(
        CANVAS_PLAIN_COLUMNS
    )
    header = [*ids, *(columns[lesson] for lesson in lessons)]
    rows: list[list[str]] = [
        [
            CANVAS_POINTS_ROW,
            *([""] * (len(ids) - 1)),
            *(number(points[lesson]) for lesson in lessons),
        ]
    ]
    for student, listed in students_of(entries, roster):
        rows.append(
            canvas_ids(student, listed, ids) + [grades.cell(student, lesson) for lesson in lessons]
        )
    return csv_text(header, rows), notes


def students_of(
    entries: Sequence[Entry], roster: Roster | None
) -> list[tuple[str, RosterStudent | None]]:
    """The rows of an LMS file: every roster student in its order, or each student graded."""
    if roster is not None:
        return [(listed.key, listed) for listed in roster.students]
    return [(student, None) for student in dict.fromkeys(e.student for e in entries)]


def canvas_ids(student: str, listed: RosterStudent | None, columns: Sequence[str]) -> list[str]:
    if listed is None:
        # Without a roster row, the student's name is the best guess at a login id.
        return [student, "", "", student, ""]
    return [listed.field(column) for column in columns]


def feedback_text(entry: Entry | None) -> str:
    if entry is None or entry.status in (*NOTHING_HANDED_IN, NOT_GRADED):
        return ""
    said = f"{number(entry.score)} of {number(entry.max_score)} points"
    detail = entry.first_error or entry.note
    return f"{said}. {detail}" if detail else f"{said}; the feedback file says rule by rule."


def moodle_csv(
    entries: Sequence[Entry],
    roster: Roster | None,
    max_scores: dict[str, float],
    options: LmsOptions = LmsOptions(),
) -> tuple[str, list[str]]:
    """Moodle's grading worksheet, filled, when the roster is one; else its gradebook import."""
    lessons = lessons_of(entries)
    if roster is not None and {WORKSHEET_ID, WORKSHEET_GRADE} <= set(roster.columns):
        return worksheet_csv(entries, roster, lessons, options, max_scores)
    columns, notes = assignment_columns(roster, lessons, options.assignment)
    points = points_of(lessons, columns, None, options, max_scores)
    notes += unscaled(lessons, None, columns, options, max_scores)
    grades = Grades(graded_for(entries, roster), points, options)
    known = [c for c in MOODLE_ID_COLUMNS if roster and c in roster.columns]
    ids = known or ["Username"]
    header = [*ids]
    for lesson in lessons:
        header += [columns[lesson], f"{columns[lesson]} feedback"]
    rows = []
    for student, listed in students_of(entries, roster):
        row = [listed.field(c) if listed and known else student for c in ids]
        for lesson in lessons:
            entry = grades.entries.get((same_student(student), lesson))
            row += [grades.cell(student, lesson), feedback_text(entry)]
        rows.append(row)
    return csv_text(header, rows), notes


def worksheet_csv(
    entries: Sequence[Entry],
    roster: Roster,
    lessons: Sequence[str],
    options: LmsOptions,
    max_scores: dict[str, float],
) -> tuple[str, list[str]]:
    """The worksheet as Moodle exported it, with Grade, Feedback comments and the time filled."""
    if len(lessons) > 1:
        raise UsageError(
            "a Moodle grading worksheet is one assignment's; grade one lesson at a time (--lesson)"
        )
    lesson = lessons[0] if lessons else ""
    graded = graded_for(entries, roster)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    rows = []
    for listed in roster.students:
        worksheet_points = number_or_none(listed.field(WORKSHEET_MAXIMUM))
        points = {lesson: options.points or worksheet_points or max_scores.get(lesson)}
        grade = Grades(graded, points, options).cell(listed.key, lesson)
        entry = graded.get((same_student(listed.key), lesson))
        fields = dict(listed.fields)
        fields[WORKSHEET_GRADE] = grade
        if grade:
            fields[WORKSHEET_MODIFIED] = now
        if WORKSHEET_FEEDBACK in fields:
            fields[WORKSHEET_FEEDBACK] = feedback_text(entry)
        rows.append([fields.get(column, "") for column in roster.columns])
    return csv_text(roster.columns, rows), []


def number_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def lms_csv(
    lms: str,
    entries: Sequence[Entry],
    roster: Roster | None,
    max_scores: dict[str, float],
    options: LmsOptions = LmsOptions(),
) -> tuple[str, list[str]]:
    """The grades as `lms` imports them, and notes for the person on what was chosen."""
    if lms == "canvas":
        return canvas_csv(entries, roster, max_scores, options)
    return moodle_csv(entries, roster, max_scores, options)
