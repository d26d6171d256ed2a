"""How fast chunklab grades a class, against the naive way, and what memory it takes.

Run from the kit's folder, with the kit installed:

    python benchmarks/grading_speed.py            # the full run (several minutes)
    python benchmarks/grading_speed.py --quick    # fewer submissions, a rough look

It builds a class of submissions for the three lessons, half correct (the
reference and the valid alternatives) and half buggy (the known mistakes
that finish; one that never finishes only measures the time limit), as
`.py` files and as notebooks, then measures:

- `chunklab grade` with the default number of jobs: submissions per second
  (the median of three runs, each run shown too);
- one submission graded cold by the CLI (a new process each time);
- the peak memory of the grading processes, for two class sizes;
- the naive way: one `pytest` process per submission, with the submission
  imported into the test process, on the same `.py` submissions.

It prints a table and the same figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from chunklab.lessons import LESSONS

KIT = Path(__file__).resolve().parent.parent

NAIVE_PLUGIN = """
import importlib.util, os, pytest

def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def pytest_configure(config):
    for name in ("rule", "points", "visibility"):
        config.addinivalue_line("markers", name)

@pytest.fixture(scope="session")
def submission():
    module = _load(os.environ["NAIVE_SUBMISSION"], "submission")
    module.last_arguments = None
    module.begin_test = lambda: None
    return module

@pytest.fixture(scope="session")
def reference():
    return _load(os.environ["NAIVE_REFERENCE"], "reference")
"""


def finishing_mistakes(lesson: str, scratch: Path) -> list[Path]:
    """Known mistakes that finish: one that loops forever only measures the time limit."""
    mistakes = sorted((KIT / "solutions" / "mistakes" / lesson).glob("*.py"))
    result = run(
        [sys.executable, "-m", "chunklab", "grade", "--lesson", lesson, *map(str, mistakes)]
    )
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    return [
        path
        for path, report in zip(mistakes, reports, strict=False)
        if all(test["outcome"] != "timeout" for test in report["tests"])
    ]


def build_class(folder: Path, per_lesson: int, notebooks: bool, scratch: Path) -> list[Path]:
    from chunklab.authoring.submission_notebook import write_submission_notebook

    folder.mkdir(parents=True)
    made = []
    for lesson in LESSONS:
        correct = [
            KIT / "solutions" / f"{lesson}.py",
            *sorted((KIT / "solutions" / "alternatives" / lesson).glob("*.py")),
        ]
        buggy = finishing_mistakes(lesson, scratch)
        for number in range(per_lesson):
            pool = correct if number % 2 == 0 else buggy
            code = pool[(number // 2) % len(pool)].read_text()
            name = f"s{number:04d}_{lesson}"
            if notebooks:
                made.append(write_submission_notebook(lesson, code, folder / f"{name}.ipynb"))
            else:
                path = folder / f"{name}.py"
                path.write_text(code)
                made.append(path)
    return made


def run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=KIT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def measured(command: list[str]) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time, and the peak resident memory (KB) of the command's processes."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "elapsed = time.perf_counter() - start\n"
        "sys.stderr.write(done.stderr)\n"
        "sys.stdout.write(done.stdout)\n"
        "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    )
    result = run([sys.executable, "-c", probe, *command])
    elapsed, peak = result.stderr.strip().splitlines()[-1].split()
    return float(elapsed), int(peak), result


def grade_class(folder: Path, count: int, out: Path, repeat: int = 1) -> dict[str, Any]:
    """The median of `repeat` runs: on a shared machine one run can be off by 20%."""
    runs = []
    for number in range(repeat):
        elapsed, peak, result = measured(
            [sys.executable, "-m", "chunklab", "grade", "--out", f"{out}_{number}", str(folder)]
        )
        reports = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(reports) == count, result.stderr[-2000:]
        runs.append((elapsed, peak, sum(r["status"] == "graded" for r in reports)))
    elapsed = statistics.median(run[0] for run in runs)
    return {
        "submissions": count,
        "seconds": round(elapsed, 2),
        "per_second": round(count / elapsed, 1),
        "per_second_each_run": [round(count / run[0], 1) for run in runs],
        "peak_rss_mb": round(max(run[1] for run in runs) / 1024, 1),
        "graded": min(run[2] for run in runs),
    }


def naive_grade(submissions: list[Path], scratch: Path, jobs: int) -> dict[str, float]:
    plugin_dir = scratch / "naive"
    plugin_dir.mkdir()
    (plugin_dir / "naive_plugin.py").write_text(NAIVE_PLUGIN)
    suites = KIT / "graders" / "chunklab" / "suites"

    def one(path: Path) -> int:
        lesson = next(lesson for lesson in LESSONS if path.stem.endswith(lesson))
        return run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "naive_plugin",
                "-p",
                "no:cacheprovider",
                "--rootdir",
                str(suites),
                "-c",
                str(suites / "pytest.ini"),
                str(suites / lesson),
            ],
            env={
                "PYTHONPATH": str(plugin_dir),
                "NAIVE_SUBMISSION": str(path),
                "NAIVE_REFERENCE": str(KIT / "solutions" / f"{lesson}.py"),
            },
        ).returncode

    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, submissions))
    elapsed = time.perf_counter() - start
    return {
        "submissions": len(submissions),
        "seconds": round(elapsed, 2),
        "per_second": round(len(submissions) / elapsed, 2),
    }


def cold_single(repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run([sys.executable, "-m", "chunklab", "grade", "solutions/char_chunk.py"])
        times.append(time.perf_counter() - start)
        assert json.loads(result.stdout)["status"] == "graded"
    return {
        "median_s": round(statistics.median(times), 3),
        "min_s": round(min(times), 3),
        "runs": repeat,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="30 submissions per lesson, no naive run"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each class grading (the median counts)"
    )
    args = parser.parse_args()
    per_lesson = 10 if args.quick else 100
    jobs = os.cpu_count() or 1
    figures: dict[str, object] = {"cpus": jobs, "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="chunklab-bench-") as name:
        scratch = Path(name)
        py = build_class(scratch / "py", per_lesson, False, scratch)
        build_class(scratch / "ipynb", per_lesson, True, scratch)
        figures["py"] = grade_class(scratch / "py", len(py), scratch / "out_py", args.repeat)
        figures["ipynb"] = grade_class(
            scratch / "ipynb", len(py), scratch / "out_ipynb", args.repeat
        )
        figures["cold_single"] = cold_single(5)
        big = scratch / "big"
        build_class(big, (per_lesson * 10) // 3, False, scratch)
        count = len(list(big.iterdir()))
        figures["memory"] = {
            "small": {"submissions": len(py), "peak_rss_mb": figures["py"]["peak_rss_mb"]},
            "large": {
                "submissions": count,
                "peak_rss_mb": grade_class(big, count, scratch / "out_big")["peak_rss_mb"],
            },
        }
        if not args.quick:
            naive = naive_grade(py, scratch, jobs)
            figures["naive_py"] = naive
            figures["speedup_vs_naive"] = round(
                figures["py"]["per_second"] / naive["per_second"], 1
            )
    print_table(figures)
    print(json.dumps(figures, indent=2))
    return 0


def speed_text(figure: dict) -> str:
    each = ", ".join(f"{speed}/s" for speed in figure["per_second_each_run"])
    return f"{figure['per_second']}/s median ({figure['seconds']} s; runs: {each})"


def print_table(figures: dict) -> None:
    rows = [
        ("what", "figure"),
        (
            f"{figures['py']['submissions']} .py submissions, {figures['cpus']} jobs",
            speed_text(figures["py"]),
        ),
        (
            f"{figures['ipynb']['submissions']} notebooks, {figures['cpus']} jobs",
            speed_text(figures["ipynb"]),
        ),
        ("one submission, cold CLI (median of 5)", f"{figures['cold_single']['median_s']} s"),
    ]
    for size in ("small", "large"):
        memory = figures["memory"][size]
        rows.append(
            (f"peak memory, {memory['submissions']} submissions", f"{memory['peak_rss_mb']} MB")
        )
    if "naive_py" in figures:
        naive = figures["naive_py"]
        rows.append(
            (
                f"naive: one pytest per submission, {naive['submissions']} .py",
                f"{naive['per_second']}/s ({naive['seconds']} s)",
            )
        )
        rows.append(("chunklab / naive", f"{figures['speedup_vs_naive']}x"))
    width = max(len(row[0]) for row in rows)
    for row in rows:
        print(f"{row[0].ljust(width)}  {row[1]}")
    print()


if __name__ == "__main__":
    raise SystemExit(main())
