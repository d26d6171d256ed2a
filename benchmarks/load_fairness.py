"""Whether a busy machine changes any grade: the same files graded idle and made busy.

Run from the kit's folder, with the kit installed:

    python benchmarks/load_fairness.py                 # this tree, idle then busy
    python benchmarks/load_fairness.py --before REV    # and the kit at git revision REV
    python benchmarks/load_fairness.py --class-size 300 --spinners 4 --jobs 8

The files: the validate corpus (each reference, stub, known mistake and valid
alternative, the slow ones included) and the benchmark's class with loops and
slow files (`grading_speed.build_looping_class`), plus one class of
`--class-size` copies of the hybrid_generator alternative, the file a busy
machine used to fail. Each kit grades them twice: on the machine as it is, and
with `--spinners` processes that spin on a CPU each and `--jobs` grading
processes. It prints, per kit, how many reports are the same in both runs
(scores, outcomes, feedback; durations aside), the ones that differ, and the
hybrid_generator copies' scores under load.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from chunklab.authoring.validation import expectations
from chunklab.kit import find_kit
from chunklab.lessons import LESSONS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_speed import build_looping_class  # noqa: E402

KIT = Path(__file__).resolve().parent.parent
HYBRID = KIT / "solutions" / "alternatives" / "chunking_pipeline" / "hybrid_generator.py"
DURATIONS = re.compile(r'"duration_s": ?[0-9.eE+-]+')


def build_files(folder: Path, class_size: int) -> None:
    """The validate corpus, the class with loops and slow files, and the hybrid copies."""
    kit = find_kit()
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    for lesson in LESSONS.values():
        for number, case in enumerate(expectations(kit, lesson)):
            shutil.copyfile(case.path, corpus / f"{case.kind}{number:03d}_{lesson.id}.py")
    scratch = folder / "scratch"
    scratch.mkdir()
    build_looping_class(folder / "looping", 40, scratch)
    hybrid = folder / "hybrid"
    hybrid.mkdir()
    for number in range(class_size):
        shutil.copyfile(HYBRID, hybrid / f"h{number:04d}_chunking_pipeline.py")


def spin() -> None:
    while True:
        pass


def grade(python_path: Path, folder: Path, jobs: int | None) -> dict[str, str]:
    """Each report as JSON with its duration left out, by submission."""
    command = [sys.executable, "-m", "chunklab", "grade", "--jsonl", "--quiet"]
    command += ["--jobs", str(jobs)] if jobs else []
    command += [str(folder / part) for part in ("corpus", "looping", "hybrid")]
    env = {**os.environ, "PYTHONPATH": str(python_path)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=folder)
    reports = {}
    for line in done.stdout.splitlines():
        report = json.loads(line)
        reports[report["submission"]] = DURATIONS.sub('"duration_s": 0', line)
    return reports


def how_they_differ(idle: str, loaded: str) -> list[str]:
    """The tests whose outcome or feedback differs, idle against busy."""
    tests = [{t["name"]: t for t in json.loads(text).get("tests", [])} for text in (idle, loaded)]
    return [
        f"{name}: {first.get('outcome')} {first.get('feedback', '')[:150]!r} / "
        f"{tests[1].get(name, {}).get('outcome')} "
        f"{tests[1].get(name, {}).get('feedback', '')[:150]!r}"
        for name, first in tests[0].items()
        if first != tests[1].get(name)
    ]


def busy(spinners: int) -> list[multiprocessing.process.BaseProcess]:
    context = multiprocessing.get_context("fork")
    return [context.Process(target=spin, daemon=True) for _ in range(spinners)]


def compare(name: str, python_path: Path, folder: Path, args: argparse.Namespace) -> dict:
    started = time.monotonic()
    idle = grade(python_path, folder, None)
    idle_seconds = time.monotonic() - started
    spinning = busy(args.spinners)
    for process in spinning:
        process.start()
    try:
        started = time.monotonic()
        loaded = grade(python_path, folder, args.jobs)
        busy_seconds = time.monotonic() - started
    finally:
        for process in spinning:
            process.kill()
            process.join()
    differ = sorted(key for key in idle if idle[key] != loaded.get(key))
    for key in differ:
        print(f"{key}:", *how_they_differ(idle[key], loaded.get(key, "{}")), sep="\n  ")
    hybrid = Counter(
        f"{json.loads(loaded[key])['score']:g}/{json.loads(loaded[key])['max_score']:g}"
        for key in loaded
        if "/hybrid/" in key
    )
    return {
        "kit": name,
        "reports": len(idle),
        "same": len(idle) - len(differ),
        "differ": differ,
        "hybrid_generator scores under load": dict(hybrid),
        "idle seconds": round(idle_seconds, 1),
        "busy seconds": round(busy_seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a git revision graded the same way, for comparison")
    parser.add_argument("--class-size", type=int, default=300)
    parser.add_argument("--spinners", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chunklab-load-") as scratch:
        folder = Path(scratch)
        build_files(folder / "files", args.class_size)
        kits = [("this tree", KIT / "graders")]
        if args.before:
            before = folder / "before"
            before.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(KIT), "archive", args.before], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(before)], input=archive.stdout, check=True)
            kits.insert(0, (args.before, before / "graders"))
        for name, python_path in kits:
            result = compare(name, python_path, folder / "files", args)
            print(json.dumps(result, indent=1), flush=True)


if __name__ == "__main__":
    main()
