"""With `--out`: `report.html` and each student's feedback page as a report sink, and the
feedback archives an LMS takes back in bulk (Canvas, Moodle)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from chunklab.class_out.class_outputs import ClassExtras, ClassOutputs
from chunklab.class_out.class_roll import ClassRoll
from chunklab.class_out.lms_feedback import FEEDBACK_ARCHIVE, feedback_archive
from chunklab.class_out.roster import Roster
from chunklab.pipeline.records import ReportRecord, RunEnd
from chunklab.reading.lms_download import Download
from chunklab.report_out.files import write_atomic_bytes


def interrupted_html(graded: int, found: int) -> str:
    return (
        '<h2 id="interrupted">Interrupted</h2>\n'
        f"<p>The run was interrupted: {graded} of {found} submission(s) were graded. "
        "This report shows only those; rerun with --resume to grade the rest.</p>"
    )


def write_feedback_archives(
    out_dir: Path,
    downloads: Sequence[Download],
    pages: dict[str, str],
    roster: Roster | None = None,
) -> list[str]:
    """Canvas's and Moodle's feedback zips, one page per student; the files written.

    With a roster, only its students' pages: the LMS refuses a page for anyone else.
    """
    written = []
    for layout in ("canvas", "moodle"):
        handed = [h for d in downloads if d.layout == layout for h in d.handed]
        if not handed:
            continue
        name = FEEDBACK_ARCHIVE.format(lms=layout)
        archive = feedback_archive(
            (h.feedback_as, out_dir / "feedback" / f"{pages[h.name]}.html")
            for h in handed
            if h.name in pages
            and h.feedback_as
            and (roster is None or roster.find(h.name, h.lms_id) is not None)
        )
        write_atomic_bytes(out_dir / name, archive)
        written.append(name)
    return written


class ClassPages:
    """Hands each report to the class's pages; writes them, and the archives, at the end."""

    def __init__(
        self, outputs: ClassOutputs, roll: ClassRoll, downloads: Sequence[Download]
    ) -> None:
        self.outputs, self.roll, self.downloads = outputs, roll, downloads
        self.written: list[str] = []

    def add(self, record: ReportRecord) -> ReportRecord:
        self.outputs.add(record.report)
        return record

    def finish(self, end: RunEnd) -> None:
        figures = self.roll.figures
        sections = [] if figures is None else [figures.html()]
        if end.interrupted:
            sections.insert(0, interrupted_html(end.graded, end.found))
        self.outputs.finish(ClassExtras(self.roll.full_names(), tuple(sections)))
        archives = write_feedback_archives(
            self.outputs.out_dir, self.downloads, self.outputs.pages, self.roll.roster
        )
        self.written = ["report.html", *archives]
