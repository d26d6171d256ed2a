"""How fast chunklab grades a class, counted in CPU against what the lessons' own work costs.

Run from the kit's folder, with the kit installed:

    python benchmarks/grading_speed.py                     # the class of 300 (several minutes)
    python benchmarks/grading_speed.py --quick             # 30 submissions, a rough look
    python benchmarks/grading_speed.py --against COMMIT    # and the kit at COMMIT, side by side
    python benchmarks/grading_speed.py --references 20 --against COMMIT   # only references

It builds a class of submissions for the three lessons, half correct (the
reference and the valid alternatives) and half buggy (the known mistakes that
finish), and grades with `chunklab grade` (default jobs):

- the class as `.py` files, all finishing;
- the same class as notebooks;
- the `.py` class where 10% of the files loop forever in different ways and
  5% are slow but correct;
- one submission graded cold by the CLI (a new process each time).

Each run is counted by a cgroup of its own (cgroup v1 `cpuacct` or v2
`cpu.stat`): the CPU of every process, the grading processes' workers and
the processes they start included. Where no cgroup can be made here, the CPU
of the waited-for children is counted instead, which misses the workers, and
the output says so.

The floor is the reference solutions' own CPU for the calls the grader makes
into a submission (the inputs to try, asked before the tests, included), measured
here: each lesson's reference is graded once with its calls noted, and the same
calls are then made on the reference alone, in a fork of a process that holds
only the reference and the kit's texts (a worker is a fork of the zygote), the
CPU of the fork and of its child counted: the pages the calls fill are the
child's to fault in, as a worker's are, and what the process held before the
fork is out of the garbage collector's sight, as the zygote's is. It is measured
before and after the gradings, three times each (each time the least of three
forks of the process, as a zygote forks many), and the least counts. A figure's
ratio is its CPU per submission over the floor of the same submissions.

The class's own work is what its submissions' own code costs: every call of theirs
that answered in a grading, made again in one process (what it held before out of
the garbage collector's sight) and timed (`cpu_shares.py --own`). No grader can
cost less than that, so it bounds how many submissions a second the machine's
CPUs can grade. Calls stopped at a limit are not made again: it is a lower bound
for a class with code that grows too fast.

With `--against COMMIT`, every figure is also measured for the kit at COMMIT
(a git worktree of it), the two kits taking turns, in the same run: on a busy
machine only figures measured side by side compare. Scores of the two kits on
the same submissions are compared too.

It prints a table and the same figures as JSON.

With `--references N`, it grades only N copies of each lesson's reference, each
lesson on its own, and prints the CPU per submission of each lesson (the median
of `--repeat` runs, the kits taking turns): the work of a class whose answers
are all the reference's.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunklab.lessons import LESSONS

KIT = Path(__file__).resolve().parent.parent


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


# The ways a submission loops forever, each made from a correct solution by replacing
# text: {lesson: {kind: [(old, new), ...]}}; "tail" adds code at the end of the file.
CHAR_BASE = """def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be at least 1 and 0 <= overlap < size")
    chunks = []
    start = 0
    while start < len(text):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
"""
WORD_BASE = """def solve(text, size, overlap):
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
"""
IMPORT_LOOP = (
    "\nsample = 'a short demo text'\nposition = 0\n"
    "while position < len(sample):\n    piece = sample[position : position + 4]\n"
)


def window_loops(append: str, end: str) -> dict[str, list[tuple[str, str]]]:
    """Loops of a while-loop solution whose last window does `append` then `end` (break)."""
    return {
        "every_call": [
            ("    chunks = []\n", "    chunks = []\n    while size > 0:\n        step = 1\n")
        ],
        "end_of_text": [(f"{append}{end}", end.replace("break", "continue"))],
        "one_setting": [("start += size - overlap", "start += size - overlap - (overlap == 0)")],
        "appending": [(end, end.replace("break", "continue"))],
        "sleeping": [
            ("def ", "import time\n\n\ndef "),
            (end, end.replace("break", "time.sleep(0.01)\n            continue")),
        ],
        "at_import": [("tail", IMPORT_LOOP)],
    }


PIPELINE_END = "                spans.append((start, len(text)))\n                break\n"
LOOPS = {
    "char_chunk": (
        CHAR_BASE,
        window_loops(
            "        chunks.append(text[start : start + size])\n",
            "        if start + size >= len(text):\n            break\n",
        ),
    ),
    "word_chunk": (
        WORD_BASE,
        window_loops(
            '        chunks.append(" ".join(words[start : start + size]))\n',
            "        if start + size >= len(words):\n            break\n",
        ),
    ),
    "chunking_pipeline": (
        None,
        {
            "every_call": [
                (
                    "        spans = []\n",
                    "        spans = []\n        while self.chunk_size > 0:\n            pass\n",
                )
            ],
            "end_of_text": [(PIPELINE_END, "                continue\n")],
            "one_setting": [
                ("start = end - self.overlap", "start = end - self.overlap - (self.overlap == 0)")
            ],
            "appending": [("                break\n", "                continue\n")],
            "sleeping": [
                ("from typing import Any\n", "import time\nfrom typing import Any\n"),
                (PIPELINE_END, "                time.sleep(0.01)\n                continue\n"),
            ],
            "at_import": [("tail", IMPORT_LOOP)],
        },
    ),
}
# Ten files in a hundred loop, in these ways.
LOOP_KINDS = (
    "every_call",
    "end_of_text",
    "one_setting",
    "appending",
    "sleeping",
    "at_import",
    "every_call",
    "end_of_text",
    "appending",
    "one_setting",
)


def looping_code(lesson: str, kind: str) -> str:
    base, kinds = LOOPS[lesson]
    code = base or (KIT / "solutions" / f"{lesson}.py").read_text()
    for old, new in kinds[kind]:
        if old == "tail":
            code += new
        else:
            assert old in code, (lesson, kind, old)
            code = code.replace(old, new, 1)
    return code


def slow_solutions(lesson: str) -> list[Path]:
    return sorted((KIT / "solutions" / "alternatives" / lesson).glob("slow_*.py"))


def build_looping_class(folder: Path, per_lesson: int, scratch: Path) -> dict[str, str]:
    """The `.py` class with 10% of files looping and 5% slow but correct; name -> what it is."""
    folder.mkdir(parents=True)
    made = {}
    for lesson in LESSONS:
        correct = [
            KIT / "solutions" / f"{lesson}.py",
            *sorted((KIT / "solutions" / "alternatives" / lesson).glob("*.py")),
        ]
        correct = [path for path in correct if not path.name.startswith("slow_")]
        buggy = finishing_mistakes(lesson, scratch)
        slow = slow_solutions(lesson)
        loops = slows = 0
        for number in range(per_lesson):
            name = f"s{number:04d}_{lesson}.py"
            if number % 10 == 3:
                kind = LOOP_KINDS[loops % len(LOOP_KINDS)]
                code, what = looping_code(lesson, kind), f"loop:{lesson}:{kind}"
                loops += 1
            elif number % 20 == 7:
                path = slow[slows % len(slow)]
                code, what = path.read_text(), f"slow:{lesson}:{path.stem}"
                slows += 1
            else:
                pool = correct if number % 2 == 0 else buggy
                path = pool[(number // 2) % len(pool)]
                code, what = path.read_text(), f"finishing:{lesson}:{path.stem}"
            (folder / name).write_text(code)
            made[name] = what
    return made


def run(
    command: list[str], env: dict[str, str] | None = None, cwd: Path = KIT
) -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        check=False,
    )


# --- Counting CPU --------------------------------------------------------------------------


def own_cgroup_folder() -> Path | None:
    """Where this process may make a cgroup that counts CPU: v2, or v1's cpuacct."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if (
            number == "0"
            and controllers == ""
            and Path("/sys/fs/cgroup/cgroup.controllers").exists()
        ):
            return Path("/sys/fs/cgroup") / path.lstrip("/")
        if "cpuacct" in controllers.split(","):
            for mount in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
                folder = Path("/sys/fs/cgroup") / mount
                if folder.exists():
                    return folder / path.lstrip("/")
    return None


class CpuCounter:
    """Counts the CPU of a command and of every process it starts, in a cgroup of its own."""

    def __init__(self) -> None:
        self.parent = own_cgroup_folder()
        self.made = 0
        self.by_cgroup = self.parent is not None and self._works()

    def _works(self) -> bool:
        try:
            with self.group() as read:
                subprocess.run([sys.executable, "-c", "pass"], preexec_fn=self._joiner, check=True)
                return read() > 0
        except OSError:
            return False

    @contextlib.contextmanager
    def group(self) -> Iterator[Any]:
        assert self.parent is not None
        self.made += 1
        self.folder = self.parent / f"chunklab-bench-{os.getpid()}-{self.made}"
        self.folder.mkdir()
        try:
            yield self._read
        finally:
            for _ in range(100):
                try:
                    self.folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.05)

    def _joiner(self) -> None:
        (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    def _read(self) -> float:
        usage = self.folder / "cpuacct.usage"
        if usage.exists():
            return int(usage.read_text()) / 1e9
        for line in (self.folder / "cpu.stat").read_text().splitlines():
            name, value = line.split()
            if name == "usage_usec":
                return int(value) / 1e6
        raise OSError("no CPU count in the cgroup")

    def measure(
        self, command: list[str], env: dict[str, str] | None = None, cwd: Path = KIT
    ) -> tuple[float, float, subprocess.CompletedProcess]:
        """Wall-clock seconds, CPU seconds of every process, and the command's result."""
        full_env = {**os.environ, **(env or {})}
        if not self.by_cgroup:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=full_env)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return elapsed, cpu, done
        with self.group() as read:
            start = time.perf_counter()
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                cwd=cwd,
                env=full_env,
                preexec_fn=self._joiner,
            )
            elapsed = time.perf_counter() - start
            return elapsed, read(), done


# --- The floor -----------------------------------------------------------------------------

# Grades one file in this process with every call into the submission noted, and prints
# the calls as JSON.
FLOOR_PROBE = r"""
import json, sys
from chunklab.cli import main
from chunklab.lessons import get_lesson
from chunklab.sandbox.backend import SandboxBackend

noted = []
request, request_many = SandboxBackend.request, SandboxBackend.request_many

def note(message):
    if message.get("op") in ("call", "new", "method"):
        message = {k: v for k, v in message.items() if k != "digest"}
        noted.append(json.loads(json.dumps(message)))

def noting_request(self, message):
    note(message)
    return request(self, message)

def noting_many(self, messages):
    for message in messages:
        note(message)
    return request_many(self, messages)

# The inputs to try, asked of every submission before its tests, are the grader's calls too.
request_tries = SandboxBackend.request_tries

def noting_tries(self, messages):
    for message in messages:
        note(message)
    return request_tries(self, messages)

SandboxBackend.request, SandboxBackend.request_many = noting_request, noting_many
SandboxBackend.request_tries = noting_tries
lesson = get_lesson(sys.argv[1])
with open("/dev/null", "w") as quiet:
    stdout, sys.stdout = sys.stdout, quiet
    main(["grade", "--jobs", "1", "--quiet", "--lesson", lesson.id, sys.argv[2]])
    sys.stdout = stdout
print(json.dumps(noted))
"""

# Makes the noted calls (a file of JSON) on the lesson's reference, in a fork of this
# process, which holds only the reference and the kit's texts (as a worker is a fork of the
# zygote, which forks many): prints the CPU of a fork and of its child, the least of three
# forks.
CALLS_PROBE = r"""
import gc, json, os, resource, sys, time
from pathlib import Path
from chunklab.kit import Kit, load_reference
from chunklab.kit_texts import call_arguments
from chunklab.lessons import get_lesson

lesson = get_lesson(sys.argv[1])
noted = json.loads(Path(sys.argv[2]).read_text())
reference = load_reference(Kit(Path.cwd()), lesson)
# A long text is named in the request, not sent: the reference gets the text itself, read
# before the fork (the zygote holds the kit's texts).
calls = [(message, call_arguments(message), message.get("kwargs", {})) for message in noted]
# As in the zygote: what this process holds is out of the garbage collector's sight.
gc.collect()
gc.freeze()


def make_calls():
    objects = {}
    for message, args, kwargs in calls:
        target = (
            getattr(objects.get(message.get("handle")), message["name"], None)
            if message["op"] == "method"
            else getattr(reference, message["name"], None)
        )
        if target is None:
            continue
        try:
            made = target(*args, **kwargs)
        except Exception:
            made = None
        if message["op"] == "new":
            objects[message["handle"]] = made


def children_cpu():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


spent = []
for _ in range(3):
    child_before, started = children_cpu(), time.thread_time()
    pid = os.fork()
    if pid == 0:
        status = 1  # a call that broke the probe itself (not the reference's ValueError)
        try:
            make_calls()
            status = 0
        finally:
            os._exit(status)  # the child never goes on with this loop
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"the reference's calls failed in the fork (status {status})")
    spent.append(time.thread_time() - started + children_cpu() - child_before)
print(json.dumps({"calls": len(noted), "cpu_s": min(spent)}))
"""


def lesson_floors(counter: CpuCounter, repeat: int = 3) -> dict[str, Any]:
    """Each lesson's floor: its reference's CPU for the grader's calls, made in a fork of a
    process holding only the reference and the kit's texts (the least of `repeat` runs)."""
    floors: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="chunklab-floor-") as name:
        for lesson in LESSONS:
            solution = KIT / "solutions" / f"{lesson}.py"
            noted = Path(name) / f"{lesson}.json"
            done = run([sys.executable, "-c", FLOOR_PROBE, lesson, str(solution)])
            assert done.returncode == 0, done.stderr[-2000:]
            noted.write_text(done.stdout.splitlines()[-1])
            runs = []
            for _ in range(repeat):
                done = run([sys.executable, "-c", CALLS_PROBE, lesson, str(noted)])
                assert done.returncode == 0, done.stderr[-2000:]
                runs.append(json.loads(done.stdout.splitlines()[-1]))
            least = min(figure["cpu_s"] for figure in runs)
            floors[lesson] = {"calls": runs[0]["calls"], "seconds": round(least, 5)}
    return floors


def least_floors(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Each lesson's floor: the least of two measures (before and after the gradings)."""
    least: dict[str, Any] = {}
    for lesson in LESSONS:
        both = [first[lesson]["seconds"], second[lesson]["seconds"]]
        least[lesson] = {**first[lesson], "seconds": min(both), "measured": both}
    return least


def add_cold_ratios(
    figures: dict[str, Any], kits: list[KitUnderTest], floors: dict[str, Any]
) -> None:
    """The cold submission's "x floor", against char_chunk's floor."""
    cold, single = figures["cold_single"], floors["char_chunk"]["seconds"]
    cold["floor_ms"] = round(single * 1000, 2)
    for kit in kits:
        cold[kit.name]["ratio_to_floor"] = round(cold[kit.name]["cpu_s"] / single, 1)


def floor_of(names: list[str], floors: dict[str, Any]) -> float:
    """The floor of these submissions (file names holding their lesson id), per submission."""
    each = [
        floors[next(lesson for lesson in LESSONS if lesson in name)]["seconds"] for name in names
    ]
    return sum(each) / len(each)


# --- Grading with a kit ----------------------------------------------------------------------


@dataclass(frozen=True)
class KitUnderTest:
    name: str
    root: Path

    def env(self) -> dict[str, str]:
        # The kit's own code first on the path; written bytecode as an installed kit has it.
        return {"PYTHONPATH": str(self.root / "graders"), "PYTHONDONTWRITEBYTECODE": ""}


def grade_once(
    counter: CpuCounter, kit: KitUnderTest, paths: list[Path], count: int
) -> tuple[float, float, dict[str, float]]:
    command = [sys.executable, "-m", "chunklab", "grade", "--quiet", *map(str, paths)]
    elapsed, cpu, done = counter.measure(command, kit.env(), kit.root)
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(reports) == count, done.stderr[-2000:]
    return elapsed, cpu, {Path(r["submission"]).name: r["score"] for r in reports}


def grade_figures(
    counter: CpuCounter,
    kits: list[KitUnderTest],
    paths: list[Path],
    count: int,
    repeat: int,
    floor_now: Callable[[], float],
) -> dict[str, Any]:
    """Each kit grades the same submissions `repeat` times, the kits taking turns; medians.

    The class's floor (`floor_now`, seconds a submission) is measured before each turn
    and after the last: each run's "x floor" is its CPU over the lesser of the floors
    measured next to it, so a machine whose speed drifts over minutes (this one's does,
    by a third) compares a run with the floor of its own minutes."""
    walls: dict[str, list[float]] = {kit.name: [] for kit in kits}
    cpus: dict[str, list[float]] = {kit.name: [] for kit in kits}
    scores: dict[str, dict[str, float]] = {}
    floors = [floor_now()]
    for _ in range(repeat):
        for kit in kits:
            elapsed, cpu, these = grade_once(counter, kit, paths, count)
            earlier = scores.get(kit.name, these)
            differing = {
                name: (earlier[name], these[name]) for name in these if earlier[name] != these[name]
            }
            assert not differing, f"two runs of {kit.name} on {paths} differ: {differing}"
            scores[kit.name] = these
            walls[kit.name].append(elapsed)
            cpus[kit.name].append(cpu)
        floors.append(floor_now())
    near = [min(before, after) for before, after in itertools.pairwise(floors)]
    figures: dict[str, Any] = {
        "submissions": count,
        "floor_ms": round(statistics.median(near) * 1000, 2),
        "floor_ms_each_turn": [round(floor * 1000, 2) for floor in near],
    }
    for kit in kits:
        wall, cpu = statistics.median(walls[kit.name]), statistics.median(cpus[kit.name])
        ratios = [one / count / floor for one, floor in zip(cpus[kit.name], near, strict=True)]
        figures[kit.name] = {
            "seconds": round(wall, 2),
            "per_second": round(count / wall, 1),
            "per_second_each_run": [round(count / one, 1) for one in walls[kit.name]],
            "cpu_ms_per_submission": round(cpu / count * 1000, 1),
            "ratio_to_floor": round(statistics.median(ratios), 2),
            "ratio_to_floor_each_run": [round(ratio, 2) for ratio in ratios],
        }
    first = scores[kits[0].name]
    figures["scores"] = first
    if len(kits) > 1:
        other = scores[kits[1].name]
        figures["different_scores"] = sorted(name for name in first if first[name] != other[name])
    return figures


def own_figures(folder: Path, count: int) -> dict[str, Any]:
    """The class's own work: its submissions' CPU for every call of theirs that answered,
    made again in one process, and for the calls stopped at their limit, as the grader
    counted them (`cpu_shares.py --own`). No grader can cost less under the lessons'
    limits (the long-document rule runs work that grows with the square up to its cap)."""
    done = run([sys.executable, str(KIT / "benchmarks" / "cpu_shares.py"), "--own", str(folder)])
    assert done.returncode == 0, done.stderr[-2000:]
    own = json.loads(done.stdout.splitlines()[-1])
    assert own["submissions"] == count, own
    return {
        "cpu_ms_per_submission": round(own["own_s"] / count * 1000, 1),
        "stopped_ms_per_submission": round(own["stopped_s"] / count * 1000, 1),
    }


def cold_figures(counter: CpuCounter, kits: list[KitUnderTest], repeat: int) -> dict[str, Any]:
    """One submission graded by the CLI in a new process: wall clock and CPU, medians."""
    figures: dict[str, Any] = {}
    runs: dict[str, list[tuple[float, float]]] = {kit.name: [] for kit in kits}
    for kit in kits:  # once each first: bytecode written, files in the page cache
        grade_once(counter, kit, [kit.root / "solutions" / "char_chunk.py"], 1)
    for _ in range(repeat):
        for kit in kits:
            elapsed, cpu, _ = grade_once(
                counter, kit, [kit.root / "solutions" / "char_chunk.py"], 1
            )
            runs[kit.name].append((elapsed, cpu))
    for kit in kits:
        wall = statistics.median(one[0] for one in runs[kit.name])
        cpu = statistics.median(one[1] for one in runs[kit.name])
        figures[kit.name] = {
            "seconds": round(wall, 3),
            "cpu_s": round(cpu, 3),
        }
    return figures


def reference_copies(
    counter: CpuCounter, kits: list[KitUnderTest], copies: int, repeat: int, scratch: Path
) -> dict[str, dict[str, Any]]:
    """Each lesson's CPU ms per submission for `copies` copies of its reference, by kit."""
    figures: dict[str, dict[str, Any]] = {}
    for lesson in LESSONS:
        folder = scratch / f"references-{lesson}"
        folder.mkdir()
        paths = [folder / f"s{number:04d}_{lesson}.py" for number in range(copies)]
        for path in paths:
            path.write_text((KIT / "solutions" / f"{lesson}.py").read_text())
        runs: dict[str, list[float]] = {kit.name: [] for kit in kits}
        for _ in range(repeat):
            for kit in kits:
                _, cpu, _ = grade_once(counter, kit, paths, copies)
                runs[kit.name].append(round(cpu / copies * 1000, 1))
        figures[lesson] = {
            name: {"cpu_ms_per_submission": round(statistics.median(each), 1), "runs": each}
            for name, each in runs.items()
        }
    return figures


@contextlib.contextmanager
def kit_at(commit: str, scratch: Path) -> Iterator[KitUnderTest]:
    """The kit as it was at `commit`, in a git worktree of its own, removed afterwards."""
    folder = scratch / "against"
    subprocess.run(
        ["git", "-C", str(KIT), "worktree", "add", "--detach", str(folder), commit],
        capture_output=True,
        check=True,
    )
    short = subprocess.run(
        ["git", "-C", str(KIT), "rev-parse", "--short", commit],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        yield KitUnderTest(short, folder)
    finally:
        subprocess.run(
            ["git", "-C", str(KIT), "worktree", "remove", "--force", str(folder)],
            capture_output=True,
            check=False,
        )


def this_commit() -> str:
    done = run(["git", "-C", str(KIT), "describe", "--always", "--dirty"])
    return done.stdout.strip() or "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 submissions per lesson")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each class grading (the median counts)"
    )
    parser.add_argument(
        "--against", metavar="COMMIT", help="also grade everything with the kit at COMMIT"
    )
    parser.add_argument(
        "--references", type=int, metavar="N", help="only N copies of each lesson's reference"
    )
    args = parser.parse_args()
    per_lesson = 10 if args.quick else 100
    counter = CpuCounter()
    figures: dict[str, Any] = {
        "commit": this_commit(),
        "date": datetime.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "cpu_counted_by": "cgroup" if counter.by_cgroup else "rusage of children (workers missed)",
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }
    with (
        tempfile.TemporaryDirectory(prefix="chunklab-bench-") as name,
        contextlib.ExitStack() as stack,
    ):
        scratch = Path(name)
        kits = [KitUnderTest("this kit", KIT)]
        if args.against:
            kits.append(stack.enter_context(kit_at(args.against, scratch)))
        figures["kits"] = [kit.name for kit in kits]
        if args.references:
            copies = reference_copies(counter, kits, args.references, args.repeat, scratch)
            for lesson, by_kit in copies.items():
                for name, figure in by_kit.items():
                    print(
                        f"{args.references} copies of {lesson}'s reference  {name:10}  "
                        f"{figure['cpu_ms_per_submission']} ms CPU each, runs {figure['runs']}"
                    )
            print(json.dumps({**figures, "references": copies}, indent=2))
            return 0
        floors = lesson_floors(counter)
        figures["floors"] = floors
        py = build_class(scratch / "py", per_lesson, False, scratch)
        build_class(scratch / "ipynb", per_lesson, True, scratch)
        looping = build_looping_class(scratch / "looping", per_lesson, scratch)
        classes = {
            "py": [scratch / "py"],
            "ipynb": [scratch / "ipynb"],
            "looping_py": [scratch / "looping"],
        }
        names = [path.name for path in py]

        def class_floor() -> float:
            return floor_of(names, lesson_floors(counter))

        for key, paths in classes.items():
            figures[key] = grade_figures(counter, kits, paths, len(py), args.repeat, class_floor)
        real = figures["looping_py"]
        slow = [name for name, what in looping.items() if what.startswith("slow:")]
        real["loops"] = sum(what.startswith("loop:") for what in looping.values())
        real["slow"] = len(slow)
        reference = {
            lesson: name
            for name, what in reversed(looping.items())
            if what == f"finishing:{(lesson := what.split(':')[1])}:{lesson}"
        }
        real["slow_at_full_marks"] = sum(
            real["scores"][name] == real["scores"][reference[looping[name].split(":")[1]]]
            for name in slow
        )
        figures["own"] = own_figures(scratch / "py", len(py))
        figures["cold_single"] = cold_figures(counter, kits, 2 * args.repeat + 1)
        # The floor again, after the gradings: a load on the machine that stays for
        # minutes slows every run of the floor, and the least of all of them counts.
        floors = least_floors(floors, lesson_floors(counter))
        figures["floors"] = floors
        add_cold_ratios(figures, kits, floors)
    print_table(figures)
    for key in classes:
        figures[key].pop("scores")
    print(json.dumps(figures, indent=2))
    return 0


def print_table(figures: dict[str, Any]) -> None:
    kits = figures["kits"]
    rows = [("what", "kit", "submissions/s", "CPU ms/submission", "x floor")]
    names = {
        "py": ".py, all finishing",
        "ipynb": "notebooks, all finishing",
        "looping_py": ".py, 10% loop, 5% slow",
    }
    for key, what in names.items():
        figure = figures[key]
        for kit in kits:
            mine = figure[kit]
            rows.append(
                (
                    f"{figure['submissions']} {what}",
                    kit,
                    f"{mine['per_second']} ({', '.join(map(str, mine['per_second_each_run']))})",
                    f"{mine['cpu_ms_per_submission']}",
                    f"{mine['ratio_to_floor']}",
                )
            )
    cold = figures["cold_single"]
    for kit in kits:
        rows.append(
            (
                "one submission, cold CLI",
                kit,
                f"{cold[kit]['seconds']} s",
                f"{round(cold[kit]['cpu_s'] * 1000)}",
                f"{cold[kit]['ratio_to_floor']}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    print()
    floors = figures["floors"]
    print(
        "floor (the reference's CPU for the grader's calls, made in a fork of a process "
        "holding only the reference and the kit's texts, the fork included; the least of the "
        "measures before and after): "
        + ", ".join(
            f"{lesson} {floors[lesson]['seconds'] * 1000:.1f} ms"
            f" ({' and '.join(f'{m * 1000:.1f}' for m in floors[lesson]['measured'])})"
            for lesson in LESSONS
        )
    )
    print(
        "x floor of a class: each run over the class's floor measured next to it (the lesser "
        "of the measures just before and just after), the median of the runs: "
        + "; ".join(
            f"{what}: floors {figures[key]['floor_ms_each_turn']} ms, "
            + ", ".join(f"{kit} {figures[key][kit]['ratio_to_floor_each_run']}" for kit in kits)
            for key, what in names.items()
        )
    )
    if len(kits) > 1:
        for key, what in names.items():
            print(
                f"scores that differ between the kits, {what}: {figures[key]['different_scores']}"
            )
    own, cpus = figures["own"]["cpu_ms_per_submission"], figures["cpus"]
    least = round(own + figures["own"]["stopped_ms_per_submission"], 1)
    times_own = [f"{kit} {figures['py'][kit]['cpu_ms_per_submission'] / least:.2f}" for kit in kits]
    print(
        f"the .py class's own work: {own} ms a submission for the calls that answered (made "
        f"again in one process), {least} ms with the calls stopped at their limit (as the "
        f"grader counted them): {least / figures['py']['floor_ms']:.2f} x floor, at most "
        f"{round(cpus * 1000 / least, 1)} a second on {cpus} CPUs whatever grades them; "
        f"CPU over it: {', '.join(times_own)}"
    )
    real = figures["looping_py"]
    print(f"slow but correct files at full marks: {real['slow_at_full_marks']} of {real['slow']}")
    print(
        f"CPU counted by {figures['cpu_counted_by']}; load average at start "
        f"{figures['load_average_at_start']}; commit {figures['commit']}, {figures['date']}"
    )
    print()


if __name__ == "__main__":
    raise SystemExit(main())
