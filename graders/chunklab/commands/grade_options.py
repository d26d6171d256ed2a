"""Every option of `chunklab grade`, declared once: its flag, help, default, choices and checks.

The command line is built from these fields (`option_fields.add_options`) and
`grade_command` takes them whole. What the class's pages, the LMS file and the
roster reader need of them is handed on as their own small values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from chunklab.commands.option_fields import check_choices, nested, option, switch
from chunklab.errors import UsageError
from chunklab.lessons import LESSONS
from chunklab.sandbox.limits import Limits
from chunklab.scoring.feedback_policy import CHOICES as HIDDEN_FEEDBACK
from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK

FORMATS = ("json", "gradescope")
LMS_FILES = ("canvas", "moodle")
DOWNLOADS = ("canvas", "moodle", "github-classroom")
FEEDBACK_FORMATS = ("html", "md")


@dataclass(frozen=True)
class GradeOptions:
    """How `chunklab grade` grades and what it writes, as the command line asked."""

    lesson: str | None = option(
        "--lesson", "grade every submission as this lesson", choices=sorted(LESSONS)
    )
    out: Path | None = option(
        "--out",
        "also write one JSON file per submission, gradebook.csv, gradebook_wide.csv, "
        "rules.csv and summary.json",
        type=Path,
        metavar="DIR",
    )
    jobs: int = option(
        "--jobs",
        "submissions graded at once (default: the number of CPUs)",
        default_factory=lambda: os.cpu_count() or 1,
        type=int,
        metavar="N",
    )
    output_format: str = option(
        "--format",
        "json: one JSON object per line; gradescope: Gradescope's results.json",
        default="json",
        choices=FORMATS,
    )
    resume: bool = switch(
        "--resume",
        "reuse the reports in --out of submissions unchanged since (same path, lesson "
        "and content); grade the rest",
    )
    roster: Path | None = option(
        "--roster",
        "the class list (e.g. a Canvas or Moodle export): listed students without a "
        "submission get 0 and status `missing`; unlisted submissions are flagged",
        type=Path,
        metavar="FILE.csv",
    )
    roster_student: str | None = option(
        "--roster-student",
        "the roster column holding the names submissions go by (default: the first of "
        "SIS Login ID, Username, Email address)",
        metavar="COLUMN",
    )
    roster_id: str | None = option(
        "--roster-id",
        "the roster column holding the LMS id (default: the first of ID, ID number, SIS User ID)",
        metavar="COLUMN",
    )
    roster_name: str | None = option(
        "--roster-name",
        "the roster column holding full names (default: Student, Full name, or "
        "First name and Last name)",
        metavar="COLUMN",
    )
    lms: str | None = option(
        "--lms",
        "also write the wide gradebook in that LMS's import format (gradebook_LMS.csv)",
        choices=LMS_FILES,
    )
    download_from: str | None = option(
        "--from",
        "read each PATH as that LMS's download (default: detected, and said)",
        choices=DOWNLOADS,
    )
    assignment: str | None = option(
        "--assignment",
        "the roster's assignment column the LMS file fills, e.g. 'Char chunk (1234)' "
        "(default: the column named for the lesson)",
        metavar="COLUMN",
    )
    points: float | None = option(
        "--points",
        "the LMS assignment's points: grades are scaled to N (default: the roster's "
        "Points Possible or Maximum grade, else the kit's points)",
        type=float,
        metavar="N",
    )
    missing_as_zero: bool = switch(
        "--missing-as-zero",
        "in the LMS file, 0 for a listed student with nothing handed in (default: empty)",
    )
    allow_unmatched: bool = switch(
        "--allow-unmatched",
        "exit 0 even when some submissions match no roster student (default: 4)",
    )
    quiet: bool = switch("--quiet", "no table and no progress bar")
    jsonl: bool = switch(
        "--jsonl", "print the JSON Lines to standard output even when it is a terminal"
    )
    hidden_feedback: str = option(
        "--hidden-feedback",
        "what a hidden test shows: full (input, expected, got), rule (the rule only), "
        f"none (points only) (default: {DEFAULT_HIDDEN_FEEDBACK})",
        default=DEFAULT_HIDDEN_FEEDBACK,
        choices=HIDDEN_FEEDBACK,
    )
    require_isolation: bool = switch(
        "--require-isolation",
        "refuse to grade where submissions would run as the grading user "
        "(neither user namespaces nor root)",
    )
    similarity: bool = switch(
        "--similarity",
        "with --out: list pairs of similar submissions in report.html and similarity.csv",
    )
    feedback: str = option(
        "--feedback",
        "with --out: feedback pages as HTML, or as HTML and Markdown",
        default="html",
        choices=FEEDBACK_FORMATS,
    )
    dask: str | None = option(
        "--dask",
        "grade on the Dask cluster whose scheduler is at ADDRESS (chunklab[dask])",
        metavar="ADDRESS",
    )
    limits: Limits = nested(Limits)

    def __post_init__(self) -> None:
        check_choices(self)
        if self.jobs < 1:
            raise UsageError("--jobs must be 1 or more")
        if self.similarity and self.out is None:
            raise UsageError("--similarity writes into the output folder: add --out DIR")
        if self.points is not None and not self.points > 0:
            raise UsageError(f"--points must be more than 0, not {self.points:g}")
        if self.out is None and (self.resume or self.lms):
            flag = "--resume" if self.resume else "--lms"
            raise UsageError(f"{flag} needs --out DIR (where files are)")
