"""`chunklab grade`: every submission to a JSON report, in input order, and the class's files."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from chunklab.class_out.class_options import LmsOptions
from chunklab.class_out.csv_file import csv_text
from chunklab.class_out.gradebook import (
    NOT_IN_ROSTER,
    Entry,
    best_entries,
    entry_of,
    gradebook_csv,
    gradebook_wide_csv,
    lessons_of,
    rules_csv,
    summary,
)
from chunklab.class_out.roster import Roster, RosterColumns, read_roster, with_roster
from chunklab.class_out.roster_figures import roster_figures
from chunklab.commands.lms_run import (
    Staging,
    find_with_downloads,
    full_names,
    lesson_max_score,
    not_attempted,
    with_download_facts,
    write_feedback_archives,
)
from chunklab.errors import GradingBrokeOffError, UsageError
from chunklab.kit import Kit, find_kit
from chunklab.lessons import get_lesson
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath, find_submissions, hidden_submissions
from chunklab.report_out.files import (
    report_file_name,
    write_atomic,
    write_json,
    write_json_or_say_why,
)
from chunklab.report_out.inert import json_line
from chunklab.report_out.progress import ProgressBar
from chunklab.report_out.report_layout import ReportLayout
from chunklab.report_out.streams import silence
from chunklab.report_out.table import Outline, outline, results_table
from chunklab.sandbox.limits import Limits
from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK
from chunklab.scoring.report import GradeReport, Problem
from chunklab.text import terminal_safe

if TYPE_CHECKING:
    # What only --out, --resume and --lms need is imported when they are given: a single
    # submission graded to stdout starts without the class's pages and similarity code.
    from chunklab.class_out.class_options import ClassOptions
    from chunklab.class_out.class_outputs import ClassOutputs
    from chunklab.report_out.resume import ResumeIndex, ResumeKey, Vanished

EXIT_INTERRUPTED = 130
EXIT_NO_SUBMISSION = 3
EXIT_UNMATCHED = 4


@dataclass(frozen=True)
class ClassSettings:
    """What the class's files need besides the reports."""

    out_dir: Path | None
    layout: ReportLayout
    roster: Roster | None
    lms: str | None
    lesson_id: str | None
    lms_options: LmsOptions = LmsOptions()


class JsonLinesOut:
    """Prints reports as JSON Lines in input order; a reader that goes away ends it quietly."""

    def __init__(self, stream: TextIO, enabled: bool, layout: ReportLayout) -> None:
        self.stream, self.enabled, self.layout = stream, enabled, layout
        self.waiting: dict[int, str] = {}
        self.next_index = 0

    def add(self, index: int, report: GradeReport) -> None:
        if self.enabled:
            self.waiting[index] = json_line(self.layout.data(report))

    def print_ready(self) -> None:
        if not self.enabled:
            return
        try:
            while self.next_index in self.waiting:
                self.stream.write(self.waiting.pop(self.next_index) + "\n")
                self.next_index += 1
            self.stream.flush()
        except BrokenPipeError:
            # `chunklab grade ... | head`: stop printing, keep grading and writing files.
            self.enabled = False
            self.waiting.clear()
            silence(self.stream)

    def print_rest(self) -> None:
        """After an interruption: what was graded, in input order, past the gaps."""
        for index in sorted(self.waiting):
            self.next_index = index
            self.print_ready()


class GradingInterrupted(KeyboardInterrupt):
    """Ctrl-C, raised by the grader's own handler.

    A subclass, because CPython notes a plain KeyboardInterrupt that escapes
    code run by `exec` (pytest and dataclasses run some) as unhandled, and then
    ends the process by SIGINT at exit even though it was handled here.
    """


class StopRequest:
    """Ctrl-C during grading: noted, and raised to stop the work under way.

    The grader suites run under pytest, which turns a KeyboardInterrupt into an
    early end of its session; reports that come back after the request may
    therefore be incomplete, and are never kept.
    """

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True
        raise GradingInterrupted

    @contextlib.contextmanager
    def on_interrupt(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


@dataclass
class ClassResults:
    """What a run keeps of each report: the table's outline and the gradebooks' entry."""

    total: int
    outlines: dict[int, Outline] = field(default_factory=dict)
    entries: dict[int, Entry] = field(default_factory=dict)
    only: GradeReport | None = None

    def add(self, index: int, report: GradeReport) -> None:
        self.outlines[index] = outline(report)
        self.entries[index] = entry_of(report)
        if self.total == 1:
            self.only = report

    def in_order(self) -> tuple[list[Outline], list[Entry]]:
        order = sorted(self.outlines)
        return [self.outlines[i] for i in order], [self.entries[i] for i in order]


def report_path(out_dir: Path, item: SubmissionPath) -> Path:
    return out_dir / "submissions" / report_file_name(item.display, item.resolved)


def find_all(
    paths: list[Path], lesson_id: str | None, limit: int
) -> tuple[list[SubmissionPath], list[Path]]:
    """The submissions under every path, and the paths that hold none."""
    items: list[SubmissionPath] = []
    empty: list[Path] = []
    for path in paths:
        found = find_submissions([path], lesson_id, limit)
        items += found
        if not found:
            empty.append(path)
    return items, empty


def max_scores_of(entries: list[Entry], lesson_id: str | None) -> dict[str, float]:
    scores = {e.lesson: e.max_score for e in entries if e.lesson and e.max_score}
    if lesson_id and lesson_id not in scores:
        from chunklab.suite_run.suite_contents import suite_contents

        scores[lesson_id] = suite_contents(get_lesson(lesson_id)).max_score
    return scores


def class_entries(entries: list[Entry], settings: ClassSettings) -> list[Entry]:
    """One entry per student and lesson, with the roster's missing students added."""
    if settings.roster is None:
        return best_entries(entries)
    lessons = lessons_of(entries) or ([settings.lesson_id] if settings.lesson_id else [])
    max_scores = max_scores_of(entries, settings.lesson_id)
    return with_roster(entries, settings.roster, lessons, max_scores)


def missing_outlines(entries: list[Entry]) -> list[Outline]:
    return [
        Outline(f"({e.student})", e.lesson, 0.0, e.max_score, "missing", "no submission")
        for e in entries
        if e.status == "missing"
    ]


def interrupted_row(graded: int, found: int) -> str:
    """The last row of gradebook.csv after Ctrl-C: the file holds part of the class."""
    return csv_text(
        [], [["(run interrupted)", "", "", "", "", "interrupted",
              f"graded {graded} of {found}; rerun with --resume"]]
    )  # fmt: skip


def write_class_files(
    results: ClassResults,
    settings: ClassSettings,
    vanished: list[Vanished],
    duration: float,
    not_written: list[str],
    interrupted: bool = False,
) -> tuple[list[Outline], list[Entry], list[str]]:
    """The gradebooks and summary (with --out); the table's rows, the entries, the files written."""
    outlines, entries = results.in_order()
    entries = class_entries(entries, settings)
    outlines += missing_outlines(entries)
    out = settings.out_dir
    if out is None:
        return outlines, entries, []
    partial = interrupted_row(len(results.outlines), results.total) if interrupted else ""
    files = {
        "gradebook.csv": gradebook_csv(entries) + partial,
        "gradebook_wide.csv": gradebook_wide_csv(entries),
        "rules.csv": rules_csv(entries),
    }
    if settings.lms:
        from chunklab.class_out.lms import lms_csv, lms_file_name

        max_scores = max_scores_of(entries, settings.lesson_id)
        files[lms_file_name(settings.lms)], notes = lms_csv(
            settings.lms, entries, settings.roster, max_scores, settings.lms_options
        )
        for note in notes:
            print(terminal_safe(f"chunklab grade: {note}"), file=sys.stderr)
    for name, text in files.items():
        write_atomic(out / name, text)
    totals = summary(outlines, duration)
    totals["not_in_roster"] = sorted({e.student for e in entries if e.roster == NOT_IN_ROSTER})
    totals["vanished"] = [v.submission for v in vanished]
    totals["reports_not_written"] = not_written
    if settings.roster is not None:
        totals["roster"] = roster_figures(entries).to_json()
    totals["interrupted"] = interrupted
    totals["graded"] = len(results.outlines)
    totals["found"] = results.total
    write_json(out / "summary.json", totals)
    written = [*files, "summary.json"]
    if settings.layout.output_format == "gradescope" and results.only is not None:
        write_json(out / "results.json", settings.layout.data(results.only))
        written.append("results.json")
    return outlines, entries, written


def grade_command(
    paths: list[Path],
    *,
    lesson_id: str | None,
    out_dir: Path | None,
    jobs: int,
    output_format: str,
    resume: bool,
    limits: Limits,
    roster: Path | None = None,
    roster_columns: RosterColumns | None = None,
    lms: str | None = None,
    quiet: bool = False,
    jsonl: bool = False,
    hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK,
    class_options: ClassOptions | None = None,
    dask: str | None = None,
    download_from: str | None = None,
    lms_options: LmsOptions | None = None,
    allow_unmatched: bool = False,
) -> int:
    started = time.monotonic()
    if out_dir is None and (resume or lms):
        raise UsageError(f"--{'resume' if resume else 'lms'} needs --out DIR (where files are)")
    layout = ReportLayout(output_format, hidden_feedback)
    settings = ClassSettings(
        out_dir=out_dir,
        layout=layout,
        roster=read_roster(roster, roster_columns or RosterColumns()) if roster else None,
        lms=lms,
        lesson_id=lesson_id,
        lms_options=lms_options or LmsOptions(),
    )
    kit = find_kit()
    # report.html, the feedback pages and similar code: built from every report as it comes.
    classes = None
    if out_dir is not None:
        from chunklab.class_out.class_options import ClassOptions
        from chunklab.class_out.class_outputs import ClassOutputs

        classes = ClassOutputs(
            out_dir, class_options or ClassOptions(hidden_feedback=hidden_feedback), kit, limits
        )
    staging = Staging(out_dir)
    try:
        return grade_found(
            paths, staging, settings, classes, kit, lesson_id=lesson_id, out_dir=out_dir,
            jobs=jobs, resume=resume, limits=limits, quiet=quiet, jsonl=jsonl,
            download_from=download_from, allow_unmatched=allow_unmatched, dask=dask,
            started=started,
        )  # fmt: skip
    finally:
        staging.close()


def grade_found(
    paths: list[Path],
    staging: Staging,
    settings: ClassSettings,
    classes: ClassOutputs | None,
    kit: Kit,
    *,
    lesson_id: str | None,
    out_dir: Path | None,
    jobs: int,
    resume: bool,
    limits: Limits,
    quiet: bool,
    jsonl: bool,
    download_from: str | None,
    allow_unmatched: bool,
    dask: str | None,
    started: float,
) -> int:
    """Grade what the paths hold and write the class's files; the exit status."""
    layout = settings.layout
    found = find_with_downloads(
        paths, lesson_id, limits.max_submission_kb * 1024, download_from, staging, kit
    )
    items, empty = found.items, found.empty
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
    for path in empty:
        print(
            terminal_safe(
                f"chunklab grade: warning: {path} holds no submission "
                "(no .py file, .ipynb notebook or student folder)"
            ),
            file=sys.stderr,
        )
    printer = JsonLinesOut(sys.stdout, jsonl or not sys.stdout.isatty(), layout)
    results = ClassResults(len(items))
    index, keys = None, {}
    if out_dir is not None:
        from chunklab.report_out.resume import ResumeIndex, resume_key

        index = ResumeIndex(out_dir, keep=resume)
        keys = {i: resume_key(item, lesson_id) for i, item in enumerate(items)}

    not_written: list[str] = []

    def take(number: int, report: GradeReport, fresh: bool) -> None:
        report = with_download_facts(report, found.handed.get(number))
        # A resumed report whose file is gone is written again: nothing graded is lost.
        if out_dir is not None and (fresh or not report_path(out_dir, items[number]).exists()):
            failed = write_json_or_say_why(report_path(out_dir, items[number]), layout.data(report))
            if failed:  # one file that cannot be written costs only itself
                warning = Problem("not_written", failed)
                report = replace(report, warnings=(*report.warnings, warning))
                not_written.append(report.submission)
                sys.stderr.write(terminal_safe(f"chunklab grade: {failed}") + "\n")
        results.add(number, report)
        printer.add(number, report)
        if classes is not None:
            classes.add(report)
        if index is not None and fresh:
            index.record(keys[number], report)

    todo = []
    for number, item in enumerate(items):
        previous = index.previous(keys[number]) if index is not None and resume else None
        handed = found.handed.get(number)
        if handed is not None and handed.untouched:
            take(number, not_attempted(handed, lesson_max_score(item.lesson)), fresh=False)
        elif previous is None:
            todo.append((number, item))
        else:
            take(number, previous, fresh=False)  # graded before, unchanged since
    printer.print_ready()
    progress = ProgressBar(0 if quiet else len(todo), sys.stderr)
    stop = StopRequest()
    grade = grade_many
    if dask:
        from chunklab.cluster.on_dask import grade_on_dask

        grade = partial(grade_on_dask, dask)
    lost: GradingBrokeOffError | None = None
    try:
        with stop.on_interrupt():
            for number, report in grade(todo, lesson_id, kit, limits, jobs):
                if stop.requested:
                    break  # finished while stopping, perhaps cut short: graded again on resume
                take(number, report, fresh=True)
                progress.advance()
                printer.print_ready()
    except KeyboardInterrupt:
        stop.requested = True
    except GradingBrokeOffError as error:
        # The grading itself broke off (a lost Dask scheduler): what was graded is
        # written like after Ctrl-C, then the error is said.
        lost = error
    finally:
        progress.finish()
        if index is not None:
            index.close()
    interrupted = stop.requested
    if interrupted:
        printer.print_rest()
    vanished = vanished_reports(index, keys, resume)
    outlines, entries, written = write_class_files(
        results, settings, vanished, time.monotonic() - started, not_written, interrupted
    )
    figures = roster_figures(entries) if settings.roster is not None else None
    if classes is not None:
        sections = [] if figures is None else [figures.html()]
        if interrupted:
            sections.insert(0, interrupted_html(len(results.outlines), len(items)))
        names = full_names(results.in_order()[1], settings.roster)
        from chunklab.class_out.class_outputs import ClassExtras

        classes.finish(ClassExtras(names, tuple(sections)))
        written.append("report.html")
        if out_dir is not None:
            written += write_feedback_archives(out_dir, found, classes.pages)
    tell(outlines, entries, written, vanished, settings, quiet)
    if figures is not None:
        print(terminal_safe(figures.line()), file=sys.stderr)
    if lost is not None:
        raise lost
    if interrupted:
        print(
            f"interrupted: {len(results.outlines)} of {len(items)} graded; rerun with --resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if figures is not None and figures.unmatched and not allow_unmatched:
        print(
            f"{len(figures.unmatched)} submission(s) match no roster student: their grades are "
            "not in the LMS file (exit status 4; --allow-unmatched makes it 0)",
            file=sys.stderr,
        )
        return EXIT_UNMATCHED
    return EXIT_NO_SUBMISSION if empty else 0


def interrupted_html(graded: int, found: int) -> str:
    return (
        '<h2 id="interrupted">Interrupted</h2>\n'
        f"<p>The run was interrupted: {graded} of {found} submission(s) were graded. "
        "This report shows only those; rerun with --resume to grade the rest.</p>"
    )


def vanished_reports(
    index: ResumeIndex | None, keys: dict[int, ResumeKey], resume: bool
) -> list[Vanished]:
    if index is None or not resume:
        return []
    return index.vanished({key.path for key in keys.values()})


def tell(
    outlines: list[Outline],
    entries: list[Entry],
    written: list[str],
    vanished: list[Vanished],
    settings: ClassSettings,
    quiet: bool,
) -> None:
    """What a person reads on stderr: the table, what is gone, and where the files went."""
    if not quiet:
        sys.stderr.write(results_table(outlines))
    if vanished:
        print(
            f"{len(vanished)} earlier report(s) belong to submissions no longer here "
            "(left out of the gradebooks):",
            file=sys.stderr,
        )
        for each in vanished:
            print(terminal_safe(f"  {each.submission}"), file=sys.stderr)
    for entry in entries:
        if entry.roster == NOT_IN_ROSTER:
            print(
                terminal_safe(
                    f"chunklab grade: warning: {entry.submission} is by {entry.student}, "
                    "who is not in the roster"
                ),
                file=sys.stderr,
            )
    if written and settings.out_dir is not None and not quiet:
        # A run stopped before any report came back wrote none: it says so by leaving them out.
        reports = f"the reports to {settings.out_dir / 'submissions'} and " if outlines else ""
        print(f"wrote {reports}{', '.join(written)} to {settings.out_dir}", file=sys.stderr)
