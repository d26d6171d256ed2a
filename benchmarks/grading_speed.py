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
- a real class: the same `.py` class where 10% of the files loop forever in
  different ways (in every call; only at the end of the text; only for one
  setting; while appending to a list; while sleeping; at import) and 5% are
  slow but correct: submissions per second, the time the loops cost, the
  ratio to the all-finishing class, and whether every score equals the one
  given with generous limits (ten times the floor);
- with `--before REV`: the char_chunk third of that class (one run each) and
  the all-finishing `.py` class (three runs each, in turn) graded by the kit
  as it was at the git revision REV and by this one, side by side;
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


def grade_class(
    folder: Path, count: int, out: Path, repeat: int = 1, options: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The median of `repeat` runs: on a shared machine one run can be off by 20%."""
    runs = []
    scores: dict[str, float] = {}
    for number in range(repeat):
        elapsed, peak, result = measured(
            [
                sys.executable,
                "-m",
                "chunklab",
                "grade",
                *options,
                "--out",
                f"{out}_{number}",
                str(folder),
            ]
        )
        reports = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(reports) == count, result.stderr[-2000:]
        these = {Path(r["submission"]).name: r["score"] for r in reports}
        assert not scores or these == scores, "two runs gave different scores"
        scores = these
        runs.append((elapsed, peak, sum(r["status"] == "graded" for r in reports)))
    elapsed = statistics.median(run[0] for run in runs)
    return {
        "submissions": count,
        "seconds": round(elapsed, 2),
        "per_second": round(count / elapsed, 1),
        "per_second_each_run": [round(count / run[0], 1) for run in runs],
        "peak_rss_mb": round(max(run[1] for run in runs) / 1024, 1),
        "graded": min(run[2] for run in runs),
        "scores": scores,
    }


def real_class(
    scratch: Path, per_lesson: int, repeat: int, finishing: dict[str, Any]
) -> dict[str, Any]:
    """The class with loops and slow files; its scores against those of generous limits."""
    folder = scratch / "looping"
    made = build_looping_class(folder, per_lesson, scratch)
    figure = grade_class(folder, len(made), scratch / "out_looping", repeat)
    # One file of each kind of loop and of each slow solution, graded with ten times the floor.
    generous = scratch / "generous"
    generous.mkdir()
    firsts = {what: name for name, what in reversed(made.items()) if what[:5] in ("loop:", "slow:")}
    for name in firsts.values():
        (generous / name).write_text((folder / name).read_text())
    options = ("--call-floor-seconds", "1")
    wide = grade_class(generous, len(firsts), scratch / "out_generous", 1, options)
    loops = [name for name, what in made.items() if what.startswith("loop:")]
    slow = [name for name, what in made.items() if what.startswith("slow:")]
    figure["loops"], figure["slow"] = len(loops), len(slow)
    figure["loop_cost_s"] = round(figure["seconds"] - finishing["seconds"], 2)
    figure["ratio_to_finishing"] = round(figure["per_second"] / finishing["per_second"], 2)
    # Full marks: what the reference solution of the same lesson scored.
    reference = {
        lesson: name
        for name, what in reversed(made.items())
        if what == f"finishing:{(lesson := what.split(':')[1])}:{lesson}"
    }
    figure["slow_at_full_marks"] = sum(
        figure["scores"][name] == figure["scores"][reference[made[name].split(":")[1]]]
        for name in slow
    )
    figure["generous"] = {
        "compared": len(firsts),
        "options": " ".join(options),
        "seconds": wide["seconds"],
        "different_scores": sorted(
            made[name] for name in firsts.values() if wide["scores"][name] != figure["scores"][name]
        ),
    }
    return figure


def before_and_after(scratch: Path, revision: str, repeat: int) -> dict[str, Any]:
    """Classes graded by the kit at `revision` and by this one, in turn.

    The char_chunk third of the real class once each (the kit before may take
    minutes on it), and the all-finishing `.py` class `repeat` times each.
    """
    kit = scratch / "before"
    kit.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(KIT), "archive", revision], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(kit)], input=archive, check=True)
    looping = scratch / "looping_char"
    looping.mkdir()
    for path in sorted((scratch / "looping").glob("*_char_chunk.py")):
        (looping / path.name).write_text(path.read_text())
    commit = subprocess.run(
        ["git", "-C", str(KIT), "rev-parse", "--short", revision],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return {
        "revision": f"{revision} = {commit}" if commit != revision else revision,
        "looping_char": side_by_side(looping, kit, 1),
        "finishing_py": side_by_side(scratch / "py", kit, repeat),
    }


def side_by_side(folder: Path, kit_before: Path, repeat: int) -> dict[str, Any]:
    """One class graded by the kit before and this one, in turn; medians, and scores compared."""
    count = len(list(folder.iterdir()))
    command = [sys.executable, "-m", "chunklab", "grade", str(folder)]
    kits = {"before": ({"PYTHONPATH": str(kit_before / "graders")}, kit_before), "after": ({}, KIT)}
    times: dict[str, list[float]] = {"before": [], "after": []}
    scores: dict[str, dict[str, float]] = {}
    for _ in range(repeat):
        for when, (env, cwd) in kits.items():
            start = time.perf_counter()
            result = run(command, env, cwd)
            times[when].append(time.perf_counter() - start)
            reports = [json.loads(line) for line in result.stdout.splitlines()]
            assert len(reports) == count, result.stderr[-2000:]
            scores[when] = {Path(r["submission"]).name: r["score"] for r in reports}
    figures: dict[str, Any] = {"submissions": count}
    for when, each in times.items():
        figures[when] = {
            "seconds": round(statistics.median(each), 2),
            "per_second": round(count / statistics.median(each), 1),
            "per_second_each_run": [round(count / one, 1) for one in each],
        }
    figures["different_scores"] = sorted(
        name for name in scores["before"] if scores["before"][name] != scores["after"][name]
    )
    return figures


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
    parser.add_argument("--no-naive", action="store_true", help="skip the naive way")
    parser.add_argument(
        "--before",
        metavar="REV",
        help="also grade the char_chunk third of the real class with the kit at git revision REV",
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
        figures["looping_py"] = real_class(scratch, per_lesson, args.repeat, figures["py"])
        if args.before:
            figures["before_after"] = before_and_after(scratch, args.before, args.repeat)
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
        if not args.quick and not args.no_naive:
            naive = naive_grade(py, scratch, jobs)
            figures["naive_py"] = naive
            figures["speedup_vs_naive"] = round(
                figures["py"]["per_second"] / naive["per_second"], 1
            )
    print_table(figures)
    for figure in (figures["py"], figures["ipynb"], figures["looping_py"]):
        figure.pop("scores")
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
    real = figures["looping_py"]
    rows += [
        (
            f"{real['submissions']} .py, {real['loops']} looping, {real['slow']} slow",
            speed_text(real),
        ),
        ("time the loops cost (against the all-finishing class)", f"{real['loop_cost_s']} s"),
        ("speed against the all-finishing class", f"{real['ratio_to_finishing']}"),
        ("slow but correct files at full marks", f"{real['slow_at_full_marks']} of {real['slow']}"),
        (
            f"scores unlike generous limits ({real['generous']['options']}), "
            f"{real['generous']['compared']} kinds",
            str(len(real["generous"]["different_scores"])),
        ),
    ]
    if "before_after" in figures:
        both = figures["before_after"]
        for key, what in (("looping_char", "char_chunk .py with loops"), ("finishing_py", ".py")):
            pair = both[key]
            for when in ("before", "after"):
                kit = both["revision"] if when == "before" else "this kit"
                rows.append(
                    (
                        f"{pair['submissions']} {what}, {when} ({kit})",
                        speed_text(pair[when]),
                    )
                )
            rows.append(
                ("  scores that differ, before and after", str(len(pair["different_scores"])))
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
