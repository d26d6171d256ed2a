"""`chunklab grade`: every submission to a JSON report, in input order."""

from __future__ import annotations

import json
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from chunklab.batch import grade_many
from chunklab.cluster.on_dask import grade_on_dask
from chunklab.kit import find_kit
from chunklab.reading.read import find_submissions
from chunklab.sandbox.limits import Limits
from chunklab.writing.files import report_file_name, write_atomic, write_json
from chunklab.writing.gradebook import gradebook_csv, summary
from chunklab.writing.gradescope import gradescope_results
from chunklab.writing.progress import ProgressBar
from chunklab.writing.table import outline, results_table


def previous_report(out_dir: Path | None, display: str) -> dict[str, Any] | None:
    """A report an earlier run already wrote for this submission (for --resume)."""
    if out_dir is None:
        return None
    path = out_dir / "submissions" / report_file_name(display)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and report.get("submission") == display else None


def grade_command(
    paths: list[Path],
    *,
    lesson_id: str | None,
    out_dir: Path | None,
    jobs: int,
    output_format: str,
    resume: bool,
    limits: Limits,
    dask: str | None = None,
) -> int:
    started = time.monotonic()
    kit = find_kit(Path.cwd())
    items = find_submissions(paths)
    shape = gradescope_results if output_format == "gradescope" else (lambda report: report)
    # Reports as JSON lines, until it is their turn on stdout (input order).
    waiting: dict[int, str] = {}
    outlines: list[dict[str, Any] | None] = [None] * len(items)
    only: dict[str, Any] | None = None  # a class of one also gets Gradescope's results.json
    next_to_print = 0

    def take(index: int, report: dict[str, Any]) -> None:
        nonlocal only
        shaped = shape(report)
        waiting[index] = json.dumps(shaped, ensure_ascii=False)
        outlines[index] = outline(report)
        if len(items) == 1:
            only = shaped

    def print_ready() -> None:
        nonlocal next_to_print
        while next_to_print in waiting:
            sys.stdout.write(waiting.pop(next_to_print) + "\n")
            next_to_print += 1
        sys.stdout.flush()

    todo = []
    for index, item in enumerate(items):
        report = previous_report(out_dir, item.display) if resume else None
        if report is None:
            todo.append((index, item))
        else:
            take(index, report)
    progress = ProgressBar(len(todo), sys.stderr)
    print_ready()
    grade = partial(grade_on_dask, dask) if dask else grade_many
    for index, report in grade(todo, lesson_id, kit, limits, jobs):
        take(index, report)
        if out_dir is not None:
            write_json(
                out_dir / "submissions" / report_file_name(report["submission"]), shape(report)
            )
        progress.advance()
        print_ready()
    progress.finish()
    done = [each for each in outlines if each is not None]
    if out_dir is not None:
        write_atomic(out_dir / "gradebook.csv", gradebook_csv(done))
        write_json(out_dir / "summary.json", summary(done, time.monotonic() - started))
        if output_format == "gradescope" and only is not None:
            write_json(out_dir / "results.json", only)
    sys.stderr.write(results_table(done))
    return 0
