"""The class as the gradebooks see it: one entry per student and lesson, the roster's added.

A report sink, built with `--out` or `--roster`: each report is kept as its
gradebook entry (never whole); when the run is over the entries are matched
to the roster, its missing students added, and its figures counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from chunklab.class_out.gradebook import (
    NOT_GRADED,
    NOT_IN_ROSTER,
    Entry,
    best_entries,
    entry_of,
    lessons_of,
)
from chunklab.class_out.roster import Roster, with_roster
from chunklab.class_out.roster_figures import RosterFigures, roster_figures
from chunklab.lessons import get_lesson
from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.report_out.table import Outline


def max_scores_of(entries: Sequence[Entry], lessons: Sequence[str]) -> dict[str, float]:
    """Each lesson's full marks: as the reports give them, else as the lesson's suite says."""
    scores = {e.lesson: e.max_score for e in entries if e.lesson and e.max_score}
    for lesson_id in lessons:
        if lesson_id not in scores:
            from chunklab.suite_run.suite_contents import suite_contents

            scores[lesson_id] = suite_contents(get_lesson(lesson_id)).max_score
    return scores


class ClassRoll:
    def __init__(self, roster: Roster | None, lesson_id: str | None) -> None:
        self.roster, self.lesson_id = roster, lesson_id
        self._entries: dict[int, Entry] = {}
        # Known once the run is over.
        self.handed_in: list[Entry] = []  # one per report, in input order
        self.entries: list[Entry] = []  # one per student and lesson
        self.figures: RosterFigures | None = None

    def add(self, record: ReportRecord) -> ReportRecord:
        self._entries[record.number] = entry_of(record.report)
        return record

    def finish(self, end: RunEnd) -> None:
        self.handed_in = [self._entries[number] for number in sorted(self._entries)]
        if self.roster is None:
            self.entries = best_entries(self.handed_in)
            return
        lessons = lessons_of(self.handed_in) or ([self.lesson_id] if self.lesson_id else [])
        # Lessons only submissions the run did not reach are of still have their rows.
        lessons += sorted({left.lesson for left in end.not_graded} - {"", *lessons})
        max_scores = max_scores_of(self.handed_in, lessons)
        self.entries = with_roster(self.handed_in, self.roster, lessons, max_scores, end.not_graded)
        self.figures = roster_figures(self.entries)

    def missing_rows(self) -> list[Outline]:
        """The table's rows of the roster's students with no submission, or none graded."""
        said = {"missing": "no submission", NOT_GRADED: "not graded: the run was interrupted"}
        return [
            Outline(f"({e.student})", e.lesson, 0.0, e.max_score, e.status, said[e.status])
            for e in self.entries
            if e.status in said
        ]

    def not_in_roster(self) -> list[Entry]:
        return [entry for entry in self.entries if entry.roster == NOT_IN_ROSTER]

    def full_names(self) -> dict[str, str]:
        """Each student of the reports, under the full name the roster gives them."""
        if self.roster is None:
            return {}
        names = {}
        for entry in self.handed_in:
            listed = self.roster.find(entry.student, entry.lms_id)
            if listed is not None and listed.name:
                names[entry.student] = listed.name
        return names
