"""How fast a class grades here, and on a Dask cluster of 1 and 2 workers, in one run.

Run from the kit's folder, with `chunklab[dask]` installed:

    python benchmarks/dask_speed.py            # 420 submissions, three runs of each
    python benchmarks/dask_speed.py --quick    # 70 submissions, one run of each

The class is the sample class copied over and over (`.py` files, notebooks,
student folders, one syntax error). Each way runs the same command,
`chunklab grade CLASS`, as a new process: here with the default `--jobs`,
then with `--dask ADDRESS` against a `distributed.LocalCluster` on this
machine, with 1 and with 2 worker processes of one thread each. Each
timed run on a cluster has a fresh cluster, warmed with one small run
first (its workers import the kit once, as a long-lived cluster's would
have), and the ways take turns run by run. The output of every run is
checked to be the same reports as the local one. It prints a table and
the same figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

KIT = Path(__file__).resolve().parent.parent


def build_class(folder: Path, copies: int) -> int:
    folder.mkdir()
    for copy in range(copies):
        for entry in sorted((KIT / "samples").iterdir()):
            target = folder / f"s{copy:04d}_{entry.name}"
            if entry.is_dir():
                shutil.copytree(entry, target)
            else:
                shutil.copy(entry, target)
    return sum(1 for _ in folder.iterdir())


def grade(class_folder: Path, *extra: str) -> tuple[float, list[dict[str, Any]]]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "chunklab", "grade", *extra, str(class_folder)],
        cwd=KIT,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.monotonic() - started
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    for report in reports:
        del report["duration_s"], report["isolation"]
    return seconds, reports


def on_cluster(workers: int, class_folder: Path, warm: Path) -> tuple[float, list]:
    """One timed run on a fresh cluster, after a small run that warms its workers."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as cluster:
        grade(warm, "--dask", cluster.scheduler_address)
        return grade(class_folder, "--dask", cluster.scheduler_address)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small class, one run each")
    args = parser.parse_args()
    copies, runs = (10, 1) if args.quick else (60, 3)
    here = f"here (--jobs {os.cpu_count()})"
    ways = {here: 0, "Dask, 1 worker": 1, "Dask, 2 workers": 2}
    times: dict[str, list[float]] = {label: [] for label in ways}
    with tempfile.TemporaryDirectory(prefix="chunklab-dask-bench-") as scratch:
        class_folder, warm = Path(scratch) / "class", Path(scratch) / "warm"
        size = build_class(class_folder, copies)
        build_class(warm, 1)
        _, expected = grade(class_folder)
        # The ways take turns, so that a change in the machine's load falls on all.
        for _ in range(runs):
            for label, workers in ways.items():
                if workers:
                    seconds, reports = on_cluster(workers, class_folder, warm)
                else:
                    seconds, reports = grade(class_folder)
                if reports != expected:
                    raise SystemExit(f"{label} gave other reports than grading here")
                times[label].append(seconds)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{size} submissions, {os.cpu_count()} CPUs, load average {load:.1f} at the end")
    print(f"{'way':<22}{'median s':>10}{'subm/s':>10}  runs")
    figures = {}
    for label, each in times.items():
        median = statistics.median(each)
        shown = " ".join(f"{t:.1f}" for t in each)
        print(f"{label:<22}{median:>10.1f}{size / median:>10.1f}  {shown}")
        figures[label] = {"median_s": round(median, 2), "runs_s": [round(t, 2) for t in each]}
    print(json.dumps({"submissions": size, "load_average": round(load, 1), "ways": figures}))


if __name__ == "__main__":
    main()
