"""The class's files in the output folder: `report.html`, `feedback/<student>.html` (or `.md`)
and, with `--similarity`, `similarity.csv`.

`ClassOutputs.add(report)` takes each full report as the grading run makes
it: the figures are counted at once and the report is spooled to a temporary
file, so memory stays flat however large the class. `finish()` then writes
each student's page from the spool, one student at a time, and the report.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

from chunklab import __version__
from chunklab.class_out.class_options import ClassOptions
from chunklab.class_out.class_report import RunFacts, class_report_html
from chunklab.class_out.class_tally import ClassTally
from chunklab.class_out.feedback_page import (
    feedback_html,
    feedback_markdown,
    student_feedback,
)
from chunklab.class_out.similarity import CodeText, Similarity, copydetect_module, similar_pairs
from chunklab.class_out.similarity_csv import similarity_csv
from chunklab.class_out.students import page_names, student_of
from chunklab.errors import ChunklabError
from chunklab.kit import Kit
from chunklab.lessons import LESSONS
from chunklab.reading.read import read_submission
from chunklab.report_out.files import write_atomic
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport

# Threads writing feedback pages at once.
WRITERS = 8


@dataclass(frozen=True)
class ClassExtras:
    """What the run knows once every report is in: names from the roster, sections to add."""

    # A student (as reports name them) -> the full name the roster gives.
    full_names: dict[str, str] = field(default_factory=dict)
    # HTML sections of report.html after its facts: the roster, a partial run.
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spooled:
    """Where one report sits in the spool."""

    student: str
    lesson: str | None
    submission: str
    offset: int
    length: int


class ClassOutputs:
    """Collects a grading run's reports, then writes the class's files into `out_dir`."""

    def __init__(self, out_dir: Path, options: ClassOptions, kit: Kit, limits: Limits) -> None:
        self.out_dir = out_dir
        self.options = options
        self.kit = kit
        self.limits = limits
        if options.similarity:
            copydetect_module()  # a missing extra is a usage error before grading, not after
        self._started = datetime.now(timezone.utc)
        self._clock = time.monotonic()
        self._tally = ClassTally()
        self._spool = tempfile.TemporaryFile()
        self._index: list[Spooled] = []
        # Each student's feedback page, without its suffix: known once `finish` wrote them.
        self.pages: dict[str, str] = {}

    def add(self, report: GradeReport) -> None:
        self._tally.add(report)
        data = (json.dumps(report.to_json(), ensure_ascii=True) + "\n").encode("ascii")
        offset = self._spool.seek(0, 2)
        self._spool.write(data)
        self._index.append(
            Spooled(student_of(report), report.lesson, report.submission, offset, len(data))
        )

    def _read(self, entry: Spooled) -> GradeReport:
        self._spool.seek(entry.offset)
        return GradeReport.from_json(json.loads(self._spool.read(entry.length)))

    def finish(self, extra: ClassExtras | None = None) -> None:
        """Write every file; the spool is gone afterwards."""
        extra = extra or ClassExtras()
        try:
            names = page_names(entry.student for entry in self._index)
            self.pages = names
            run_line = f"Graded on {self._started:%Y-%m-%d} with chunklab {__version__}."
            self._write_feedback(names, run_line, extra.full_names)
            similar = self._similar_code() if self.options.similarity else None
            if similar is not None:
                write_atomic(self.out_dir / "similarity.csv", similarity_csv(similar.pairs))
            facts = RunFacts(
                date=f"{self._started:%Y-%m-%d %H:%M} UTC",
                kit_version=__version__,
                duration_s=time.monotonic() - self._clock,
                limits=tuple(
                    (limit.name, str(getattr(self.limits, limit.name)))
                    for limit in fields(self.limits)
                ),
                hidden_feedback=self.options.hidden_feedback,
                sections=extra.sections,
            )
            html = class_report_html(self._tally.summary(), facts, names, similar)
            write_atomic(self.out_dir / "report.html", html)
        finally:
            self._spool.close()

    def _write_feedback(
        self, names: dict[str, str], run_line: str, full_names: dict[str, str]
    ) -> None:
        by_student: dict[str, list[Spooled]] = {}
        for entry in self._index:
            by_student.setdefault(entry.student, []).append(entry)
        folder = self.out_dir / "feedback"
        # Each page is written atomically and synced; the syncs wait on the disk, not
        # the CPU, so a few threads overlap them. Few pages wait at once.
        with ThreadPoolExecutor(max_workers=WRITERS) as pool:
            pending: deque[Future[None]] = deque()
            for student, entries in by_student.items():
                lessons = student_feedback(
                    [self._read(entry) for entry in entries], self.options.hidden_feedback
                )
                shown = full_names.get(student) or student
                pages = [(".html", feedback_html(shown, lessons, run_line))]
                if self.options.feedback == "md":
                    pages.append((".md", feedback_markdown(shown, lessons, run_line)))
                for suffix, text in pages:
                    path = folder / f"{names[student]}{suffix}"
                    pending.append(pool.submit(write_atomic, path, text))
                while len(pending) > 2 * WRITERS:
                    pending.popleft().result()
            for written in pending:
                written.result()

    def _similar_code(self) -> Similarity:
        codes = (code for entry in self._index if (code := self._code(entry)) is not None)
        given = {lesson: given_code(self.kit, lesson) for lesson in LESSONS}
        return similar_pairs(codes, given)

    @staticmethod
    def _code(entry: Spooled) -> CodeText | None:
        """The submission's code as read for grading; one that cannot be read is left out."""
        if entry.lesson not in LESSONS:
            return None
        try:
            source = read_submission(Path(entry.submission), entry.lesson, entry.submission)
        except (ChunklabError, OSError, ValueError):
            return None
        code = "\n".join(cell.source for cell in source.cells)
        return CodeText(entry.lesson, entry.submission, entry.student, code)


def given_code(kit: Kit, lesson_id: str) -> str:
    """A lesson's given code: its stub and every code cell of its notebook."""
    lesson = LESSONS[lesson_id]
    parts = []
    try:
        parts.append(kit.exercise(lesson).read_text(encoding="utf-8"))
    except OSError:
        pass
    try:
        notebook = json.loads(kit.notebook(lesson).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        notebook = {}
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            parts.append("".join(source) if isinstance(source, list) else str(source))
    return "\n".join(parts)
