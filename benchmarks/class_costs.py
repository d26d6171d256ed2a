"""Where a class's CPU goes, file by file: which submissions cost the most to grade.

Run from the kit's folder, with the kit installed:

    python benchmarks/class_costs.py             # the .py class of grading_speed.py
    python benchmarks/class_costs.py --top 12    # more files per lesson
    python benchmarks/class_costs.py --copies 8  # less noise, more time

It builds the `.py` class of `grading_speed.py` (all finishing) and grades each
distinct file once alone and once with `--copies` more copies of it
(`chunklab grade --jobs 1`, a process each time, counted by a cgroup as
there). What a further copy adds is what the file costs in a class: its own
calls, the grader's work on them, its worker, with what a grading process
keeps between submissions (the answers on the long texts found right)
already kept. Each lesson's files are then
ranked by their share of the lesson's class (that cost times the file's copies
in the class), and the share of the files whose work grows faster than the
text (the long-document check finds it so) is summed: they run until the
check stops them, by design.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from grading_speed import KIT, CpuCounter, build_class

from chunklab.lessons import LESSONS

# Words of the long-document check's feedback when the work grows faster than the text.
GROWS_TOO_FAST = "its work grows faster than the text"


def graded(counter: CpuCounter, paths: list[Path], lesson: str) -> tuple[float, dict]:
    """CPU seconds of grading `paths` in one process, and the first one's report."""
    command = [sys.executable, "-m", "chunklab", "grade", "--quiet", "--jobs", "1"]
    options = ["--hidden-feedback", "full", "--lesson", lesson]
    _, cpu, done = counter.measure([*command, *options, *map(str, paths)])
    return cpu, json.loads(done.stdout.splitlines()[0])


def copy_cost(
    counter: CpuCounter, path: Path, lesson: str, scratch: Path, copies: int
) -> tuple[float, dict]:
    """CPU seconds each further copy of `path` adds to grading it, and its report."""
    twins = []
    for number in range(copies):
        twin = scratch / f"copy{number}" / path.name
        twin.parent.mkdir(exist_ok=True)
        twin.write_text(path.read_text())
        twins.append(twin)
    alone, report = graded(counter, [path], lesson)
    together, _ = graded(counter, [path, *twins], lesson)
    for twin in twins:
        twin.unlink()
    return max(0.0, together - alone) / copies, report


def grows_too_fast(report: dict) -> bool:
    return any(GROWS_TOO_FAST in test["feedback"] for test in report["tests"])


def lesson_costs(
    counter: CpuCounter, files: list[Path], lesson: str, scratch: Path, copies: int
) -> dict:
    alike: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        alike[path.read_text()].append(path)
    rows = []
    for text, paths in alike.items():
        cpu, report = copy_cost(counter, paths[0], lesson, scratch, copies)
        rows.append(
            {
                "file": paths[0].name,
                "what": text.splitlines()[0].lstrip('#" ').strip()[:90],
                "ms": round(1000 * cpu, 1),
                "copies": len(paths),
                "grows_too_fast": grows_too_fast(report),
            }
        )
    total = sum(row["ms"] * row["copies"] for row in rows)
    for row in rows:
        row["share"] = round(row["ms"] * row["copies"] / total, 4) if total else 0.0
    rows.sort(key=lambda row: -row["share"])
    growing = sum(row["share"] for row in rows if row["grows_too_fast"])
    return {
        "files": len(files),
        "distinct": len(rows),
        "ms_per_file": round(total / len(files), 1),
        "share_of_files_growing_too_fast": round(growing, 4),
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=6, help="files shown per lesson")
    parser.add_argument("--copies", type=int, default=4, help="further copies graded of each")
    args = parser.parse_args()
    counter = CpuCounter()
    with tempfile.TemporaryDirectory(prefix="chunklab-costs-") as name:
        scratch = Path(name)
        files = build_class(scratch / "py", 100, False, scratch)
        figures = {
            lesson: lesson_costs(
                counter, [f for f in files if f.stem.endswith(lesson)], lesson, scratch, args.copies
            )
            for lesson in LESSONS
        }
    for lesson, figure in figures.items():
        print(
            f"{lesson}: {figure['files']} files ({figure['distinct']} distinct), "
            f"{figure['ms_per_file']} ms of CPU each as a copy in a class; "
            "files whose work grows faster than the text: "
            f"{100 * figure['share_of_files_growing_too_fast']:.1f}% of it"
        )
        for row in figure["rows"][: args.top]:
            mark = "  grows too fast" if row["grows_too_fast"] else ""
            print(
                f"  {100 * row['share']:5.1f}%  {row['ms']:7.1f} ms x{row['copies']}  "
                f"{row['what']}{mark}"
            )
    print(json.dumps({"kit": str(KIT), "lessons": figures}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
