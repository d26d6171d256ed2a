"""`chunklab grade`: every submission to a JSON report, in input order, and the class's files.

One path: find what the paths hold, build the outputs asked for, hand each of
them every report as a record (`pipeline.records`), then tell each that the
run is over. What only `--out`, `--roster`, `--lms` or `--resume` need is
imported when they are given: one submission graded to stdout starts without
the class's pages, gradebooks and similarity code.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from chunklab.commands.grade_options import GradeOptions
from chunklab.commands.grade_stop import take_until_stopped
from chunklab.commands.lms_run import (
    Found,
    Staging,
    find_with_downloads,
    lesson_max_score,
    not_attempted,
    with_download_facts,
)
from chunklab.errors import GradingBrokeOffError
from chunklab.kit import Kit, find_kit
from chunklab.pipeline.garbage import collecting_per_session
from chunklab.pipeline.pool import grades_here
from chunklab.pipeline.records import NotGraded, ReportRecord, ReportSink, RunEnd, Sinks
from chunklab.reading.read import SubmissionPath, hidden_submissions
from chunklab.report_out.progress import ProgressBar
from chunklab.report_out.report_layout import ReportLayout
from chunklab.report_out.table_out import TableOut
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.scoring.report import GradeReport
from chunklab.text import terminal_safe

if TYPE_CHECKING:
    from chunklab.class_out.class_outputs import ClassOutputs
    from chunklab.class_out.class_pages import ClassPages
    from chunklab.class_out.class_roll import ClassRoll
    from chunklab.class_out.gradebook_files import Gradebooks
    from chunklab.class_out.roster import Roster
    from chunklab.report_out.report_files import ReportFiles
    from chunklab.report_out.resume import ResumeOut

EXIT_INTERRUPTED = 130
EXIT_NO_SUBMISSION = 3
EXIT_UNMATCHED = 4


@dataclass
class Outputs:
    """The outputs a run feeds, in the order each record goes through them."""

    table: TableOut
    sinks: list[ReportSink] = field(default_factory=list)
    resume: ResumeOut | None = None
    roll: ClassRoll | None = None
    # What wrote files into --out, in the order the closing line names them.
    files: list[Gradebooks | ReportFiles | ClassPages] = field(default_factory=list)

    def written(self) -> list[str]:
        return [name for each in self.files for name in each.written]


def grade_command(paths: list[Path], options: GradeOptions) -> int:
    started = time.monotonic()
    if options.require_isolation:
        from chunklab.sandbox.zygote import require_isolation

        require_isolation(options.limits)
    roster = read_roster_asked(options)
    kit = find_kit()
    # The class's pages are set up first: a missing extra is a usage error before anything is read.
    pages = class_pages(options.out, options, kit) if options.out is not None else None
    staging = Staging(options.out)
    try:
        found = find_with_downloads(
            paths, options.lesson, options.limits.max_submission_kb * 1024,
            options.download_from, staging, kit,
        )  # fmt: skip
        say_what_was_found(paths, found)
        outputs = build_outputs(options, found, roster, pages)
        end, lost = feed(found, outputs, options, kit, started)
        tell(outputs, options)
    finally:
        staging.close()
    if lost is not None:
        raise lost
    return exit_status(end, found, outputs, options)


def feed(
    found: Found, outputs: Outputs, options: GradeOptions, kit: Kit, started: float
) -> tuple[RunEnd, GradingBrokeOffError | None]:
    """Every report to every output, then the end; and what broke the grading off, if anything."""
    ready, todo = decide(found, outputs.resume)
    sinks = Sinks([ProgressBar(0 if options.quiet else len(todo), sys.stderr), *outputs.sinks])

    def take(number: int, report: GradeReport, fresh: bool = True) -> None:
        report = with_download_facts(report, found.handed.get(number))
        sinks.add(ReportRecord(number, found.items[number], report, fresh))

    for number, report in ready:
        take(number, report, fresh=False)
    grade = partial(grade_locally, todo, options, kit)
    if options.dask:
        from chunklab.cluster.on_dask import grade_on_dask

        grade = partial(grade_on_dask, options.dask, todo, options.lesson, kit,
                        options.limits, options.jobs)  # fmt: skip
    interrupted, lost = take_until_stopped(grade, take)
    left = not_graded(found, sinks.numbers, options.lesson) if interrupted else ()
    end = RunEnd(len(found.items), sinks.count, interrupted, started, left)
    sinks.finish(end)
    return end, lost


def not_graded(found: Found, graded: set[int], lesson: str | None) -> tuple[NotGraded, ...]:
    """The submissions found that were not graded, under the names their reports would give."""
    left = []
    for number, item in enumerate(found.items):
        if number in graded:
            continue
        handed = found.handed.get(number)
        student = handed.name if handed is not None else item.student or item.display
        lms_id = handed.lms_id if handed is not None else ""
        left.append(NotGraded(student, item.lesson or lesson or "", lms_id))
    return tuple(left)


def grade_locally(
    todo: list[tuple[int, SubmissionPath]], options: GradeOptions, kit: Kit
) -> Iterator[tuple[int, GradeReport]]:
    """(index, report) of every submission to grade, graded on this machine.

    Where this process grades them itself, its sandbox starts first: the zygote's
    start (a new interpreter) then overlaps the import of pytest and the grading
    code, which is most of the time one submission takes.
    """
    here = bool(todo) and grades_here(len(todo), options.jobs)
    zygote = None
    if here:
        zygote = Zygote(ZygoteSettings(options.limits))
        zygote.spawn_ahead()  # this process forks no grading process
    try:
        with collecting_per_session() if here else contextlib.nullcontext():
            from chunklab.pipeline.parallel import grade_many  # imports pytest

            yield from grade_many(todo, options.lesson, kit, options.limits, options.jobs, zygote)
    finally:
        if zygote is not None:
            zygote.close()  # the session has closed it unless grading failed to start


def exit_status(end: RunEnd, found: Found, outputs: Outputs, options: GradeOptions) -> int:
    if end.interrupted:
        print(
            f"interrupted: {end.graded} of {end.found} graded; rerun with --resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    figures = outputs.roll.figures if outputs.roll is not None else None
    if figures is not None and figures.unmatched and not options.allow_unmatched:
        where = "not in the LMS file" if options.lms else "flagged `not in roster` in gradebook.csv"
        print(
            f"{len(figures.unmatched)} submission(s) match no roster student: their grades are "
            f"{where} (exit status 4; --allow-unmatched makes it 0)",
            file=sys.stderr,
        )
        return EXIT_UNMATCHED
    return EXIT_NO_SUBMISSION if found.empty else 0


def read_roster_asked(options: GradeOptions) -> Roster | None:
    if options.roster is None:
        return None
    from chunklab.class_out.roster import RosterColumns, read_roster

    columns = RosterColumns(options.roster_student, options.roster_id, options.roster_name)
    return read_roster(options.roster, columns)


def class_pages(out: Path, options: GradeOptions, kit: Kit) -> ClassOutputs:
    from chunklab.class_out.class_options import ClassOptions
    from chunklab.class_out.class_outputs import ClassOutputs

    shown = ClassOptions(options.similarity, options.feedback, options.hidden_feedback)
    return ClassOutputs(out, shown, kit, options.limits)


def build_outputs(
    options: GradeOptions, found: Found, roster: Roster | None, pages: ClassOutputs | None
) -> Outputs:
    """The outputs asked for, the table last (it is printed when everything is written)."""
    layout = ReportLayout(options.output_format, options.hidden_feedback)
    roll = None
    if options.out is not None or roster is not None:
        from chunklab.class_out.class_roll import ClassRoll

        roll = ClassRoll(roster, options.lesson)
    table = TableOut(
        shown=not options.quiet, more_rows=tuple if roll is None else roll.missing_rows
    )
    outputs = Outputs(table, roll=roll)
    if options.out is not None and roll is not None and pages is not None:
        add_out_folder(outputs, options.out, options, layout, found, roll, pages)
    elif roll is not None:
        outputs.sinks.append(roll)
    if options.jsonl or not sys.stdout.isatty():
        from chunklab.report_out.json_lines import JsonLinesOut

        outputs.sinks.append(JsonLinesOut(sys.stdout, layout))
    outputs.sinks.append(table)
    return outputs


def add_out_folder(
    outputs: Outputs,
    out: Path,
    options: GradeOptions,
    layout: ReportLayout,
    found: Found,
    roll: ClassRoll,
    pages: ClassOutputs,
) -> None:
    """What --out holds: a report's file comes first, as it may add a warning to the report."""
    from chunklab.class_out.class_options import LmsOptions
    from chunklab.class_out.class_pages import ClassPages
    from chunklab.class_out.gradebook_files import Gradebooks
    from chunklab.report_out.report_files import ReportFiles
    from chunklab.report_out.resume import ResumeOut

    files = ReportFiles(out, layout)
    resume = ResumeOut(out, found.items, options.lesson, keep=options.resume)
    lms = LmsOptions(options.assignment, options.points, options.missing_as_zero)
    books = Gradebooks(out, roll, outputs.table, resume, files, options.lms, lms)
    class_files = ClassPages(pages, roll, found.downloads)
    # The roll is finished before what reads it: the gradebooks and the pages.
    outputs.sinks += [files, roll, resume, books, class_files]
    outputs.resume = resume
    outputs.files = [books, files, class_files]


def decide(
    found: Found, resume: ResumeOut | None
) -> tuple[list[tuple[int, GradeReport]], list[tuple[int, SubmissionPath]]]:
    """The reports ready without grading (an untouched file, a resumed one), and what to grade."""
    ready, todo = [], []
    for number, item in enumerate(found.items):
        handed = found.handed.get(number)
        previous = resume.previous(number) if resume is not None else None
        if handed is not None and handed.untouched:
            ready.append((number, not_attempted(handed, lesson_max_score(item.lesson))))
        elif previous is None:
            todo.append((number, item))
        else:
            ready.append((number, previous))  # graded before, unchanged since
    return ready, todo


def say_what_was_found(paths: list[Path], found: Found) -> None:
    """On stderr: the downloads read, and what is not graded."""
    for download in found.downloads:
        print(download.said, file=sys.stderr)
        for message in download.skipped:
            print(terminal_safe(f"chunklab grade: warning: {message}"), file=sys.stderr)
    for hidden in (each for path in paths if path.is_dir() for each in hidden_submissions(path)):
        print(
            terminal_safe(
                f"chunklab grade: warning: {hidden} is not graded: its name starts with '.'"
            ),
            file=sys.stderr,
        )
    for path in found.empty:
        print(
            terminal_safe(
                f"chunklab grade: warning: {path} holds no submission "
                "(no .py file, .ipynb notebook or student folder)"
            ),
            file=sys.stderr,
        )


def tell(outputs: Outputs, options: GradeOptions) -> None:
    """What a person reads on stderr after the table: what is gone, and where the files went."""
    vanished = outputs.resume.vanished if outputs.resume is not None else []
    if vanished:
        print(
            f"{len(vanished)} earlier report(s) belong to submissions no longer here "
            "(left out of the gradebooks):",
            file=sys.stderr,
        )
        for each in vanished:
            print(terminal_safe(f"  {each.submission}"), file=sys.stderr)
    for entry in outputs.roll.not_in_roster() if outputs.roll is not None else []:
        print(
            terminal_safe(
                f"chunklab grade: warning: {entry.submission} is by {entry.student}, "
                "who is not in the roster"
            ),
            file=sys.stderr,
        )
    written = outputs.written()
    if written and options.out is not None and not options.quiet:
        print(wrote_line(options.out, written, bool(outputs.table.rows())), file=sys.stderr)
    figures = outputs.roll.figures if outputs.roll is not None else None
    if figures is not None:
        print(terminal_safe(figures.line()), file=sys.stderr)


def wrote_line(out_dir: Path, written: list[str], any_report: bool) -> str:
    """Where the files went; a run stopped before any report came back wrote none."""
    reports = f"the reports to {out_dir / 'submissions'} and " if any_report else ""
    return f"wrote {reports}{', '.join(written)} to {out_dir}"
