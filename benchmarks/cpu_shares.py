"""Where grading's CPU goes: the share of each part of the work, on a class of submissions.

    python benchmarks/cpu_shares.py [--per-lesson N] [FOLDER]
    python benchmarks/cpu_shares.py --own FOLDER   # only the submissions' own CPU, as JSON

Grades the class (without FOLDER: the benchmark's class of `grading_speed.py`,
N submissions per lesson, 100 unless told) with `--jobs 1`, in this process,
inside a cgroup of its own, and splits the CPU of every process:

- the grading process (its CPU measured here), in the shares of py-spy's samples
  of its stacks that hold the interpreter's lock (a thread waiting on a worker does
  not), taken in a second grading of the same class (pytest's
  own machinery, judging answers, the call protocol, the long-document check,
  start-up and reports); py-spy must be installed (`pip install py-spy`);
- the workers and their zygote (the cgroup's total less the grading process):
  every request the grading process sent (the inputs to try, which a child of the
  worker makes, as calls) is replayed in this process on the
  worker's own code (`worker_main.serve`), timing the submission's calls apart
  from the worker's protocol (reading requests, loading, checking and writing
  answers, digests). Calls stopped at their limit (or that ended their worker)
  are not replayed: their CPU is what the grading process counted for them when
  it stopped them. What is left is the workers' life (fork, confinement,
  ending) and the inputs to try stopped in the worker's child.

Shares are of all the CPU the run used. The replay runs outside the sandbox, so
the worker's split is an estimate; the totals are measured.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grading_speed  # noqa: E402  (the class and the cgroup counter are the benchmark's)

from chunklab.cli import main as chunklab_main  # noqa: E402
from chunklab.kit_texts import kit_text, kit_text_files  # noqa: E402
from chunklab.sandbox import worker_main  # noqa: E402
from chunklab.sandbox.backend import SandboxBackend  # noqa: E402

# The parts of the grading process, by the first of these found in its stack, innermost first.
GRADER_PARTS = (
    ("long document: judging answers", ("hidden_cutting.py", "test_visible.py:cut_starts")),
    ("long document: call protocol", ("long_texts.py",)),
    (
        "judging answers (other checks)",
        ("hidden_cutting.py", "checks.py:expect", "pipeline_tries.py"),
    ),
    (
        "call protocol (other checks)",
        ("submission_proxy.py", "backend.py", "worker.py", "answer_", "call_watch.py", "cpu_time"),
    ),
    ("grader tests' own code", ("suites/",)),
    ("pytest's machinery", ("_pytest/", "pluggy/")),
)
LONG_TEST = "test_a_long_document"


def part_of(frames: list[str]) -> str:
    """The part of the grading process's work a stack shows (its frames, innermost first)."""
    in_long = any(LONG_TEST in frame for frame in frames)
    if not any("_pytest/runner.py" in frame for frame in frames):
        return "start-up, reading, reports"
    for frame in frames:
        for part, marks in GRADER_PARTS:
            if part.startswith("long document") and not in_long:
                continue
            if any(mark in frame for mark in marks):
                return part
    return "pytest's machinery"


def file_and_name(frame: str) -> str:
    """`file:function` of a frame as py-spy writes it: `function (file:line)`."""
    name, _, where = frame.partition(" (")
    return f"{where.rsplit(':', 1)[0]}:{name}"


def grader_split(folder: Path, scratch: Path) -> Counter[str]:
    """The grading process's CPU by part, as shares: py-spy's samples of its stacks that hold
    the interpreter's lock, 250 a second (at 1,000 a second, py-spy's own pauses swelled
    the share of the imports several times over)."""
    samples = scratch / "samples.txt"
    command = [sys.executable, "-m", "chunklab", "grade", "--jobs", "1", "--quiet", str(folder)]
    done = subprocess.run(
        ["py-spy", "record", "--gil", "-r", "250", "-f", "raw", "-o", str(samples), "--", *command],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0 or not samples.exists():
        raise SystemExit(f"py-spy could not sample the grading: {done.stderr.decode()[-500:]}")
    parts: Counter[str] = Counter()
    for line in samples.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if "OutputCollector" in stack:
            continue  # a thread that waits on a worker's output
        frames = [file_and_name(frame) for frame in stack.split(";")]
        parts[part_of(frames[::-1])] += int(count)
    total = sum(parts.values()) or 1
    return Counter({part: count / total for part, count in parts.items()})


def noting_requests() -> tuple[list[list[str]], Counter[str]]:
    """Every request line the backends send, one list per submission's backend; and the
    own CPU seconds of the calls stopped at their limit (or that ended their worker)."""
    sent: list[list[str]] = []
    stopped: Counter[str] = Counter()
    request, request_many, request_tries, init, spend = (
        SandboxBackend.request,
        SandboxBackend.request_many,
        SandboxBackend.request_tries,
        SandboxBackend.__init__,
        SandboxBackend._spend,
    )

    def start(self, zygote, cells, limits, reference=None, local_modules=()) -> None:  # type: ignore[no-untyped-def]
        init(self, zygote, cells, limits, reference, local_modules)
        # The load as the backend sends it, with its own time: a file that loops at its
        # top level is stopped in the replay as in the worker.
        load = {"op": "load", "cells": self.cells, "local_modules": self.local_modules}
        self.noted = [json.dumps({**load, "seconds": self._load_seconds()})]
        sent.append(self.noted)

    # Only calls that answered are noted: one stopped at its limit would run on here.
    def one(self, message):  # type: ignore[no-untyped-def]
        answer = request(self, message)
        self.noted.append(json.dumps(message))
        return answer

    def many(self, messages):  # type: ignore[no-untyped-def]
        outcomes = request_many(self, messages)
        answered = [m for m, o in zip(messages, outcomes, strict=False) if isinstance(o, dict)]
        self.noted.append(json.dumps({"op": "calls", "calls": answered}))
        return outcomes

    # The inputs to try, asked of every submission before its tests, are calls of it too.
    def tries(self, messages):  # type: ignore[no-untyped-def]
        outcomes = request_tries(self, messages)
        answered = [m for m, o in zip(messages, outcomes, strict=False) if isinstance(o, dict)]
        self.noted.append(json.dumps({"op": "calls", "calls": answered}))
        return outcomes

    # A request whose worker is gone afterwards had a call stopped (or the worker ended by
    # the code): the worker's own time the grader counts for it is that call's, as its
    # watch last saw it.
    def spent(self, worker, started, mark):  # type: ignore[no-untyped-def]
        if not worker.alive:
            stopped["seconds"] += max(0.0, worker.own_seconds_since(mark))
        spend(self, worker, started, mark)

    SandboxBackend.__init__, SandboxBackend.request, SandboxBackend.request_many = start, one, many
    SandboxBackend.request_tries, SandboxBackend._spend = tries, spent
    return sent, stopped


def grade_here(folder: Path) -> tuple[float, list[list[str]], float]:
    """Grade `folder` in this process: its CPU, the requests each backend sent, and the own
    CPU seconds of the calls stopped at their limit."""
    sent, stopped = noting_requests()
    before = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            chunklab_main(["grade", "--jobs", "1", "--quiet", str(folder)])
        finally:
            sys.stdout = stdout
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, sent, stopped["seconds"]


def replay_shares(sent: list[list[str]]) -> Counter[str]:
    """The worker's CPU for the requests sent: the submission's calls, and the rest."""
    worker_main.KIT_TEXTS.update({name: str(kit_text(name)) for name in kit_text_files()})
    # What this process holds (the grading it replays, pytest's sessions) is put out of the
    # garbage collector's sight, as the zygote's is in a worker: else every collection the
    # replayed calls set off would walk it, and count as theirs.
    gc.collect()
    gc.freeze()
    spent: Counter[str] = Counter()
    answer, plain_answer = worker_main.Session.answer, worker_main.plain_answer

    def timed_answer(self, request, as_value=False):  # type: ignore[no-untyped-def]
        started, answering = time.process_time(), spent["answers"]
        try:
            return answer(self, request, as_value)
        finally:
            # A call on a long text names it rather than sending it. Checking and
            # encoding its answer is the worker's protocol, not the call's own.
            own = time.process_time() - started - (spent["answers"] - answering)
            spent["long" if "texts" in request else "other"] += own

    def timed_plain_answer(value):  # type: ignore[no-untyped-def]
        started = time.process_time()
        try:
            return plain_answer(value)
        finally:
            spent["answers"] += time.process_time() - started

    worker_main.Session.answer, worker_main.plain_answer = timed_answer, timed_plain_answer
    try:
        for lines in sent:
            started = time.process_time()
            worker_main.serve(iter(lines), io.StringIO())
            spent["all"] += time.process_time() - started
            worker_main.sys.modules.pop("submission", None)
    finally:
        worker_main.Session.answer, worker_main.plain_answer = answer, plain_answer
    return Counter(
        {
            "long document: the submission's own calls": spent["long"],
            "other checks: the submission's own calls": spent["other"],
            "protocol (requests, loading, answers, digests)": spent["all"]
            - spent["long"]
            - spent["other"],
        }
    )


def print_own(folder: Path) -> int:
    """The submissions' own CPU for every call of theirs that answered (the replay's), and
    for the calls stopped at their limit (as the grader counted them), as JSON: what grading
    them costs at the least, whatever grades them under the lessons' limits."""
    _, sent, stopped = grade_here(folder)
    replayed = replay_shares(sent)
    own = sum(seconds for part, seconds in replayed.items() if "own calls" in part)
    print(json.dumps({"submissions": len(sent), "own_s": own, "stopped_s": stopped}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--per-lesson", type=int, default=100)
    parser.add_argument(
        "--own",
        action="store_true",
        help="print only the submissions' own CPU for their calls, as JSON (needs FOLDER)",
    )
    args = parser.parse_args()
    if args.own:
        return print_own(args.folder)
    counter = grading_speed.CpuCounter()
    if not counter.by_cgroup:
        print("no cgroup counts CPU here: the workers' CPU cannot be measured", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="chunklab-shares-") as scratch:
        folder = args.folder
        if folder is None:
            folder = Path(scratch) / "py"
            grading_speed.build_class(folder, args.per_lesson, False, Path(scratch))
        shares = grader_split(folder, Path(scratch))
        count = len([p for p in folder.iterdir() if p.suffix in (".py", ".ipynb") or p.is_dir()])
        with counter.group() as read:
            (counter.folder / "cgroup.procs").write_text(str(os.getpid()))
            try:
                started = read()
                own, sent, stopped = grade_here(folder)
                total = read() - started
            finally:
                # Back where it was, so that the group can be removed.
                (counter.parent / "cgroup.procs").write_text(str(os.getpid()))
    workers = max(0.0, total - own)
    replayed = replay_shares(sent)
    rows = {f"grading process: {part}": share * own for part, share in shares.items()}
    scale = min(1.0, workers / max(sum(replayed.values()), 1e-9))
    for part, seconds in replayed.items():
        rows[f"worker: {part}"] = seconds * scale
    # Counted by the grader as it stopped them, in a grading of its own: never more than
    # what the replay leaves unexplained.
    left = max(0.0, workers - sum(replayed.values()) * scale)
    rows["worker: calls stopped at their limit"] = min(stopped, left)
    rows["worker: the workers' life (fork, confinement, ending), tries stopped"] = max(
        0.0, left - stopped
    )
    print(f"{count} submissions, {total:.2f} s of CPU in all, {total / count * 1000:.1f} ms each")
    for part, seconds in sorted(rows.items(), key=lambda row: -row[1]):
        print(f"{seconds / total:6.1%}  {seconds / count * 1000:7.1f} ms  {part}")
    print(
        f"the calls stopped at their limit, as the grader counted them: "
        f"{stopped / count * 1000:.1f} ms each; what the replay leaves unexplained: "
        f"{left / count * 1000:.1f} ms each"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
