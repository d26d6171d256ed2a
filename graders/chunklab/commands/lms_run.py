"""The LMS round trip of `chunklab grade`: a download in, the LMS's files out.

The grading run itself is the same as for any class folder; this module
finds the submissions of a download (`reading.lms_download`), adds to each
report what the download told (the student's LMS id, a late hand-in, what was
renamed or skipped), and the class's pages pack the feedback as the LMS takes it back
(`class_out.class_pages`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from chunklab.kit import Kit
from chunklab.lessons import LESSONS
from chunklab.reading.read import SubmissionPath, find_submissions
from chunklab.scoring.report import GradeReport, Problem

if TYPE_CHECKING:
    # A download is read only when a path is a folder or a zip: one file graded starts
    # without the LMS's readers.
    from chunklab.reading.lms_download import Download, Handed

# Under --out, where a download's files are copied to be graded (kept, so --resume works).
STAGING_FOLDER = "lms_download"


@dataclass
class Found:
    """Every submission under the paths given, and what a download told of each."""

    items: list[SubmissionPath] = field(default_factory=list)
    empty: list[Path] = field(default_factory=list)
    handed: dict[int, Handed] = field(default_factory=dict)
    downloads: list[Download] = field(default_factory=list)


class Staging:
    """The folder a download is copied into: under --out, else a temporary one."""

    def __init__(self, out_dir: Path | None) -> None:
        self._temporary = out_dir is None
        self._fresh: set[int] = set()
        self.root = (
            Path(tempfile.mkdtemp(prefix="chunklab-lms-"))
            if out_dir is None
            else (out_dir / STAGING_FOLDER)
        )

    def folder(self, number: int) -> Path:
        """The folder of the `number`th path given; emptied of an earlier run's files once."""
        folder = self.root / str(number)
        if number not in self._fresh:
            shutil.rmtree(folder, ignore_errors=True)
            self._fresh.add(number)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def close(self) -> None:
        if self._temporary:
            shutil.rmtree(self.root, ignore_errors=True)


def find_with_downloads(
    paths: Sequence[Path],
    lesson_id: str | None,
    limit: int,
    download_from: str | None,
    staging: Staging,
    kit: Kit,
) -> Found:
    """Each path as an LMS download when it is one (or `--from` says so), else as a class folder."""
    found = Found()

    def in_folder(number: int, path: Path) -> list[SubmissionPath]:
        """A folder's or a zip's: a class folder's submissions, or a download's (noted)."""
        from chunklab.reading.lms_download import detect, read_download, unzip_download

        folder = path
        if path.suffix.lower() == ".zip" and path.is_file():
            folder = staging.folder(number) / "download"
            unzip_download(path, folder, limit)
        layout = download_from or (detect(folder) if folder.is_dir() else None)
        if layout is None:  # a class folder (or a zip of one)
            return find_submissions([folder], lesson_id, limit)
        # Its files are shown by their names in the zip, or in the folder as it was given.
        named = f"{path.name}: " if folder is not path else f"{path.name}/"
        download = read_download(
            folder, layout, download_from is None, lesson_id, limit,
            staging.folder(number) / "students", kit, named,
        )  # fmt: skip
        found.downloads.append(download)
        start = len(found.items)
        found.handed.update((start + n, handed) for n, handed in enumerate(download.handed))
        return [handed.item for handed in download.handed]

    for number, path in enumerate(paths):
        if download_from is None and not path.is_dir() and path.suffix.lower() != ".zip":
            items = find_submissions([path], lesson_id, limit)  # a file: no download to read
        else:
            items = in_folder(number, path)
        found.items += items
        if not items:
            found.empty.append(path)
    if found.handed:
        from chunklab.reading.lms_download import told_apart

        told = told_apart(found.handed)
        renamed = {id(found.handed[number]): handed for number, handed in told.items()}
        found.handed = told
        for number, handed in told.items():
            found.items[number] = handed.item
        for download in found.downloads:
            download.handed = [renamed.get(id(each), each) for each in download.handed]
    return found


def with_download_facts(report: GradeReport, handed: Handed | None) -> GradeReport:
    """The report with what its download told: whose it is in the LMS, late, what was skipped."""
    if handed is None:
        return report
    return replace(
        report,
        student=handed.name,
        lms_id=handed.lms_id,
        late=handed.late,
        # A report taken back from --resume has them already.
        warnings=(*(w for w in handed.warnings if w not in report.warnings), *report.warnings),
    )


def not_attempted(handed: Handed, max_score: float) -> GradeReport:
    """The report of a repository copy's file left exactly as it was handed out."""
    return GradeReport(
        lesson=handed.item.lesson,
        submission=handed.item.display,
        status="not_attempted",
        warnings=(
            Problem(
                "not_attempted",
                f"{handed.item.path.name} is the file as it was handed out: nothing was changed "
                "in it, so nothing was graded",
            ),
        ),
        max_score=max_score,
        student=handed.name,
    )


def lesson_max_score(lesson: str | None) -> float:
    if lesson not in LESSONS:
        return 0.0
    from chunklab.suite_run.suite_contents import suite_contents

    return suite_contents(LESSONS[lesson]).max_score
