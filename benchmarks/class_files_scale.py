"""How long the class's files take for a large class: similar code, then the pages.

Run from the kit's folder, with the similarity extra installed:

    python benchmarks/class_files_scale.py              # 1,000 submissions of each lesson
    python benchmarks/class_files_scale.py --size 300

It builds a class from the reference, the alternatives and the known mistakes
of a lesson, each copy disguised differently (names renamed, comments
rewritten), so most pairs share some code and some share all of it; then it
times `similar_pairs` (fingerprinting, every pair compared, regions of the
flagged pairs kept) and prints the seconds and the number of pairs flagged.

Then it times `report.html` and a feedback page per student (HTML and
Markdown) for as many students, each with a report of the lesson
`chunking_pipeline` that breaks a rule with a chunk picture.
"""

from __future__ import annotations

import argparse
import builtins
import io
import keyword
import random
import tempfile
import time
import tokenize
from dataclasses import replace
from pathlib import Path

from chunklab.class_out.class_outputs import ClassOptions, ClassOutputs, given_code
from chunklab.class_out.similarity import CodeText, similar_pairs
from chunklab.kit import Kit, find_kit
from chunklab.lessons import LESSONS
from chunklab.sandbox.limits import Limits
from chunklab.scoring.report import GradeReport, TestOutcome


def renamed(source: str, rng: random.Random) -> str:
    """The source with about half its own names renamed and its comments rewritten.

    Builtins, `self` and imported modules keep their names, as in a real disguise
    (renaming them would break the code).
    """
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    imported = {
        token.string
        for line in source.splitlines()
        if line.lstrip().startswith(("import ", "from "))
        for token in tokenize.generate_tokens(io.StringIO(line.strip()).readline)
        if token.type == tokenize.NAME
    }
    kept = imported | set(dir(builtins)) | {"self", "cls"}
    own = sorted(
        {t.string for t in tokens if t.type == tokenize.NAME and t.string.islower()}
        - kept
        - set(keyword.kwlist)
    )
    names = {name: f"{name}_{rng.randrange(1000)}" for name in own if rng.random() < 0.5}
    out = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            token = token._replace(string=f"# note {rng.randrange(10**6)}")
        elif token.type == tokenize.NAME and token.string in names:
            token = token._replace(string=names[token.string])
        out.append(token)
    return tokenize.untokenize(out)


def class_of(kit: Kit, lesson: str, size: int, rng: random.Random) -> list[CodeText]:
    folders = [kit.solutions / kind / lesson for kind in ("alternatives", "mistakes")]
    sources = [kit.solutions.joinpath(f"{lesson}.py").read_text(encoding="utf-8")]
    sources += [p.read_text(encoding="utf-8") for f in folders for p in sorted(f.glob("*.py"))]
    codes = []
    for number in range(size):
        source = renamed(rng.choice(sources), rng)
        codes.append(CodeText(lesson, f"class/s{number:04d}_{lesson}.py", f"s{number:04d}", source))
    return codes


def student_report(number: int) -> GradeReport:
    broken = TestOutcome(
        name="test_visible.py::test_hard_cut_without_whitespace",
        rule="With no whitespace in its window, a chunk is cut after exactly chunk_size.",
        max_score=1.0,
        outcome="failed",
        visibility="visible",
        feedback="Input: ChunkingPipeline(chunk_size=30, overlap=5).chunk_text('"
        + "abcdefghijklmnopqrstuvwxyz" * 3
        + "')\nExpected: ['abcdefghijklmnopqrstuvwxyzabcd', 'zabcdefghijklmnopqrstuvwxyzabc', "
        "'yzabcdefghijklmnopqrstuvwxyz']\nGot: ['abcdefghijklmnopqrstuvwxyzabcd', "
        "'efghijklmnopqrstuvwxyzabcdefgh', 'ijklmnopqrstuvwxyz']",
    )
    passed = replace(broken, name="test_hidden.py::test_other", outcome="passed")
    return GradeReport(
        lesson="chunking_pipeline",
        submission=f"class/s{number:04d}_chunking_pipeline.py",
        status="graded",
        max_score=2.0,
        tests=(broken, passed),
        duration_s=0.1,
        isolation="namespaces",
    )


def time_pages(kit: Kit, size: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        outputs = ClassOutputs(Path(folder), ClassOptions(feedback="md"), kit, Limits())
        started = time.perf_counter()
        for number in range(size):
            outputs.add(student_report(number))
        outputs.finish()
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000, help="submissions per lesson")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    kit = find_kit()
    rng = random.Random(args.seed)
    print(f"{'lesson':<20}{'submissions':>12}{'pairs compared':>16}{'flagged':>10}{'seconds':>10}")
    for lesson in LESSONS:
        codes = class_of(kit, lesson, args.size, rng)
        started = time.perf_counter()
        similar = similar_pairs(codes, {lesson: given_code(kit, lesson)})
        seconds = time.perf_counter() - started
        compared = args.size * (args.size - 1) // 2
        print(f"{lesson:<20}{args.size:>12}{compared:>16,}{similar.flagged:>10,}{seconds:>10.1f}")
    seconds = time_pages(kit, args.size)
    print(f"report.html and {args.size:,} feedback pages (.html and .md): {seconds:.1f} s")


if __name__ == "__main__":
    main()
