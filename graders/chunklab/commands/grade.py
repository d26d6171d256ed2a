"""`chunklab grade`: every submission to a JSON report, in input order."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from chunklab.batch import grade_many
from chunklab.kit import find_kit
from chunklab.reading.read import SubmissionPath, find_submissions
from chunklab.sandbox.limits import Limits
from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK
from chunklab.scoring.feedback_policy import with_hidden_feedback
from chunklab.writing.files import (
    report_file_name,
    write_atomic,
    write_json,
    write_json_or_say_why,
)
from chunklab.writing.gradebook import gradebook_csv, summary
from chunklab.writing.gradescope import gradescope_results
from chunklab.writing.inert import json_line, terminal_safe
from chunklab.writing.progress import ProgressBar
from chunklab.writing.table import outline, results_table


def report_path(out_dir: Path, item: SubmissionPath) -> Path:
    return out_dir / "submissions" / report_file_name(item.display, item.resolved)


def previous_report(out_dir: Path | None, item: SubmissionPath) -> dict[str, Any] | None:
    """A report an earlier run already wrote for this submission (for --resume)."""
    if out_dir is None:
        return None
    path = report_path(out_dir, item)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) and report.get("submission") == item.display else None


def grade_command(
    paths: list[Path],
    *,
    lesson_id: str | None,
    out_dir: Path | None,
    jobs: int,
    output_format: str,
    resume: bool,
    limits: Limits,
    hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK,
) -> int:
    started = time.monotonic()
    kit = find_kit(Path.cwd())
    items = find_submissions(paths)
    layout = gradescope_results if output_format == "gradescope" else (lambda report: report)

    def shape(report: dict[str, Any]) -> dict[str, Any]:
        # What students may see of hidden tests, in every output that carries tests.
        return layout(with_hidden_feedback(report, hidden_feedback))

    # Reports as JSON lines, until it is their turn on stdout (input order).
    waiting: dict[int, str] = {}
    outlines: list[dict[str, Any] | None] = [None] * len(items)
    only: dict[str, Any] | None = None  # a class of one also gets Gradescope's results.json
    next_to_print = 0

    def take(index: int, report: dict[str, Any]) -> None:
        nonlocal only
        shaped = shape(report)
        waiting[index] = json_line(shaped)
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
        report = previous_report(out_dir, item) if resume else None
        if report is None:
            todo.append((index, item))
        else:
            take(index, report)
    progress = ProgressBar(len(todo), sys.stderr)
    print_ready()
    not_written: list[str] = []
    for index, report in grade_many(todo, lesson_id, kit, limits, jobs):
        if out_dir is not None:
            failed = write_json_or_say_why(report_path(out_dir, items[index]), shape(report))
            if failed:  # one file that cannot be written costs only itself
                report["warnings"] = [
                    *report["warnings"],
                    {"kind": "not_written", "message": failed},
                ]
                not_written.append(report["submission"])
                sys.stderr.write(terminal_safe(f"chunklab grade: {failed}") + "\n")
        take(index, report)
        progress.advance()
        print_ready()
    progress.finish()
    done = [each for each in outlines if each is not None]
    if out_dir is not None:
        write_atomic(out_dir / "gradebook.csv", gradebook_csv(done))
        write_json(
            out_dir / "summary.json",
            {**summary(done, time.monotonic() - started), "reports_not_written": not_written},
        )
        if output_format == "gradescope" and only is not None:
            write_json(out_dir / "results.json", only)
    sys.stderr.write(results_table(done))
    return 0
