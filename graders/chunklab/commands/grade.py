"""`chunklab grade`: every submission to a JSON report, in input order."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from chunklab.batch import grade_many
from chunklab.kit import find_kit
from chunklab.reading.read import find_submissions
from chunklab.sandbox.limits import Limits
from chunklab.writing.files import report_file_name, write_atomic, write_json
from chunklab.writing.gradebook import gradebook_csv, summary
from chunklab.writing.gradescope import gradescope_results
from chunklab.writing.progress import ProgressBar
from chunklab.writing.table import results_table


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
) -> int:
    started = time.monotonic()
    kit = find_kit(Path.cwd())
    items = find_submissions(paths)
    reports: list[dict[str, Any] | None] = [None] * len(items)
    if resume:
        for index, item in enumerate(items):
            reports[index] = previous_report(out_dir, item.display)
    todo = [(i, item) for i, item in enumerate(items) if reports[i] is None]
    shape = gradescope_results if output_format == "gradescope" else (lambda report: report)
    progress = ProgressBar(len(todo), sys.stderr)
    next_to_print = 0

    def print_ready() -> None:
        nonlocal next_to_print
        while next_to_print < len(reports) and reports[next_to_print] is not None:
            sys.stdout.write(json.dumps(shape(reports[next_to_print]), ensure_ascii=False) + "\n")
            next_to_print += 1
        sys.stdout.flush()

    print_ready()
    for index, report in grade_many(todo, lesson_id, kit, limits, jobs):
        reports[index] = report
        if out_dir is not None:
            write_json(
                out_dir / "submissions" / report_file_name(report["submission"]), shape(report)
            )
        progress.advance()
        print_ready()
    progress.finish()
    done = [r for r in reports if r is not None]
    if out_dir is not None:
        write_atomic(out_dir / "gradebook.csv", gradebook_csv(done))
        write_json(out_dir / "summary.json", summary(done, time.monotonic() - started))
        if output_format == "gradescope" and len(done) == 1:
            write_json(out_dir / "results.json", shape(done[0]))
    sys.stderr.write(results_table(done))
    return 0
