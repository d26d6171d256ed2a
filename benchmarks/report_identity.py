"""Whether a change of the code changed any report: two versions grade the same work.

Run from the kit's folder:

    python benchmarks/report_identity.py 1de1a76           # a revision against this tree
    python benchmarks/report_identity.py 1de1a76 --validate  # `chunklab validate` too
    python benchmarks/report_identity.py 1de1a76 --against 1de1a76  # the noise: none expected

The revision (from git) and the working tree (as it is, uncommitted edits
included) are each copied to the same folder in turn, so resolved paths (and
the report file names hashed from them) agree, and each copy grades with its
own code:

- the sample class, with `--out` (every file) and as Gradescope results;
- the validate corpus per lesson: the reference, the stub, every known
  mistake and every valid alternative, with `--out`;
- each sample file through `chunklab check --json`;
- with `--validate`, `chunklab validate`'s table.

Every file and every standard output is compared byte for byte, after each
duration (and the date of the run) is replaced by a fixed value, and so is the
digest of the grader suites' files (a change to a suite changes it). Each version
grades twice (`--runs`), the two taking turns: time limits are measured, and
on a busy machine a call near its limit may time out in one run only; a file
is the same when some run of each version wrote it alike. Prints the files
that differ and exits 1 when one does.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
LESSONS = ("char_chunk", "word_chunk", "chunking_pipeline")
SAMPLE_FILES = (
    ("char_chunk", "samples/alice/char_chunk.py"),
    ("char_chunk", "samples/bob_char_chunk.py"),
    ("word_chunk", "samples/carol_word_chunk.ipynb"),
    ("chunking_pipeline", "samples/erin_chunking_pipeline.py"),
    ("chunking_pipeline", "samples/frank_chunking_pipeline.py"),
)
# What changes from run to run whatever the code: durations, the run's date and which
# submissions were the slowest. Grading runs in one process (--jobs 1), so the class's
# files take the reports in input order, not in the order parallel processes finish.
DURATION_KEYS = re.compile(r'("(?:duration_s|execution_time)": ?)-?[0-9][0-9.eE+-]*')
RUN_DURATION = re.compile(r"<dt>Duration</dt><dd>[0-9.]+ s</dd>")
# Measured, not computed: how fast a submission that runs out of memory grows.
MEMORY_FIGURES = re.compile(r"\([0-9]+ MB, growing by [0-9]+ MB a second\)")
DATES = re.compile(r"\b20[0-9]{2}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2} UTC)?")
# The digest of the grader suites' own files, which every report names: a change to a
# suite's code changes it by design, whatever the suite then finds.
SUITES_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def steady(name: str, text: str) -> str:
    """The text with what differs between two runs of the same code made fixed."""
    lines = [
        SUITES_DIGEST.sub(
            "sha256:SUITES", MEMORY_FIGURES.sub("(MEMORY)", DURATION_KEYS.sub(r"\g<1>0", line))
        )
        for line in text.splitlines()
    ]
    if name.endswith((".html", ".md")):
        lines = [DATES.sub("DATE", RUN_DURATION.sub("DURATION", line)) for line in lines]
        # Which submissions were the slowest is timing, not the code.
        lines = [slowest_left_out(line) if ">Seconds</th>" in line else line for line in lines]
    return "\n".join(lines)


def slowest_left_out(line: str) -> str:
    """The table of the slowest submissions without its rows: which ones are is timing."""
    head, _, body = line.partition("<tbody>")
    return head + "<tbody>SLOWEST" + body[body.rfind("</tr>") + 5 :]


def copy_revision(revision: str, into: Path) -> None:
    archive = subprocess.run(
        ["git", "-C", str(KIT), "archive", revision], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def copy_working_tree(into: Path) -> None:
    listed = subprocess.run(
        ["git", "-C", str(KIT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, (os.fsdecode(n) for n in listed)):
        source = KIT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def chunklab(kit: Path, out: Path, name: str, *args: str) -> None:
    """One command run with the copy's own code; its stdout kept as `name`."""
    env = {**os.environ, "PYTHONPATH": str(kit / "graders")}
    done = subprocess.run(
        [sys.executable, "-m", "chunklab", *args], cwd=kit, env=env, capture_output=True
    )
    (out / name).write_bytes(done.stdout + f"\n(exit {done.returncode})\n".encode())


def grade_all(kit: Path, out: Path, validate: bool) -> None:
    out.mkdir(parents=True)
    # The copy's code, not the installed one: a copy that imports another is no test.
    env = {**os.environ, "PYTHONPATH": str(kit / "graders")}
    found = subprocess.run(
        [sys.executable, "-c", "import chunklab; print(chunklab.__file__)"],
        cwd=kit,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not found.startswith(str(kit)):
        raise SystemExit(f"the copy at {kit} imports chunklab from {found}")
    grade = ("grade", "--jobs", "1", "--jsonl")
    chunklab(kit, out, "samples.jsonl", *grade, "samples", "--out", str(out / "class"))
    chunklab(kit, out, "samples-gradescope.jsonl", *grade, "samples", "--format", "gradescope")
    for lesson in LESSONS:
        corpus = [
            f"solutions/{lesson}.py",
            f"exercises/{lesson}.py",
            f"solutions/mistakes/{lesson}",
            f"solutions/alternatives/{lesson}",
        ]
        where = str(out / f"corpus-{lesson}")
        chunklab(
            kit,
            out,
            f"corpus-{lesson}.jsonl",
            *grade,
            "--lesson",
            lesson,
            "--out",
            where,
            *corpus,
        )
    for lesson, path in SAMPLE_FILES:
        chunklab(kit, out, f"check-{Path(path).stem}.json", "check", lesson, path, "--json")
    if validate:
        chunklab(kit, out, "validate.txt", "validate")


def steady_texts(runs: list[Path], name: Path) -> set[str] | None:
    """The file's text in each run, made steady; None when a run lacks the file."""
    if not all((run / name).is_file() for run in runs):
        return None
    return {steady(str(name), (run / name).read_text(encoding="utf-8")) for run in runs}


def differences(revision: list[Path], tree: list[Path]) -> list[str]:
    """Files no run of the revision and no run of the tree agree on.

    A time limit is measured, not computed: on a busy machine a call near its
    limit may time out in one run and not in the next, whatever the code. A
    file the two versions wrote alike in some run is the same.
    """
    names = {p.relative_to(run) for run in revision + tree for p in run.rglob("*") if p.is_file()}
    differ = []
    for name in sorted(names):
        before, after = steady_texts(revision, name), steady_texts(tree, name)
        if before is None or after is None:
            differ.append(f"{name}: not written by every run")
        elif not before & after:
            unsteady = (
                " (and differs between runs of one version)" if len(before | after) > 2 else ""
            )
            differ.append(f"{name}: differs{unsteady}")
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("revision", help="the git revision to compare the working tree with")
    parser.add_argument("--validate", action="store_true", help="compare `chunklab validate` too")
    parser.add_argument("--against", help="a second revision instead of the working tree")
    parser.add_argument("--runs", type=int, default=2, help="runs of each version (default 2)")
    parser.add_argument("--keep", type=Path, help="keep both versions' outputs in this folder")
    options = parser.parse_args()
    versions = {
        "revision": lambda kit: copy_revision(options.revision, kit),
        "tree": copy_working_tree
        if options.against is None
        else (lambda kit: copy_revision(options.against, kit)),
    }
    with tempfile.TemporaryDirectory(prefix="chunklab-identity-") as scratch:
        root = Path(scratch)
        outputs = options.keep or root / "outputs"
        runs: dict[str, list[Path]] = {label: [] for label in versions}
        # Runs of the two versions take turns, so a busy spell falls on both alike.
        for number in range(1, options.runs + 1):
            for label, copy in versions.items():
                kit = root / "kit"  # the same path for every run: resolved paths must agree
                kit.mkdir()
                copy(kit)
                print(f"grading with the {label}, run {number}...", file=sys.stderr)
                grade_all(kit, outputs / f"{label}-{number}", options.validate)
                runs[label].append(outputs / f"{label}-{number}")
                shutil.rmtree(kit)
        differ = differences(runs["revision"], runs["tree"])
        compared = sum(1 for p in runs["tree"][0].rglob("*") if p.is_file())
    for line in differ:
        print(line)
    print(f"{compared} files compared, {len(differ)} differ (durations and dates aside)")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
