"""Proves the graders: what each kit file must score, and whether it did.

The reference gets full marks, the stub zero (graded, not crashed), every
known mistake loses points, every valid alternative gets full marks as a
`.py` file and as a notebook, and every lesson notebook runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from chunklab.kit import Kit
from chunklab.lessons import Lesson
from chunklab.reading.python_file import decode_source
from chunklab.scoring.report import GradeReport

FULL, ZERO, LOSES_POINTS = "full marks", "zero", "loses points"
# What a submission that never cuts, or that only answers the public examples, may
# score at most: the points of the rules that involve no cutting, or that the
# public checks show.
WEAK_LIMIT = 0.4
AT_MOST = f"at most {WEAK_LIMIT:.0%}"
# Known mistakes of these kinds are held to AT_MOST, by the start of their file name.
WEAK_KINDS = {"non_chunker_": "non-chunker", "public_only_": "public-only"}


@dataclass(frozen=True)
class Expectation:
    lesson: Lesson
    kind: str  # reference, stub, mistake, alternative
    path: Path
    expected: str
    description: str = ""

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Verdict:
    expectation: Expectation
    ok: bool
    score: str
    detail: str


def description_of(path: Path) -> str:
    """The first line of a mistake or alternative: `# Mistake: what it gets wrong`."""
    first = decode_source(path.read_bytes(), path).split("\n", 1)[0]
    return first.split(":", 1)[1].strip() if first.startswith("#") and ":" in first else ""


def expectations(kit: Kit, lesson: Lesson) -> list[Expectation]:
    found = [
        Expectation(lesson, "reference", kit.solution(lesson), FULL),
        Expectation(lesson, "stub", kit.exercise(lesson), ZERO),
    ]
    found += [
        Expectation(
            lesson,
            "mistake",
            path,
            AT_MOST if weak_kind(path) else LOSES_POINTS,
            description_of(path),
        )
        for path in sorted(kit.mistakes(lesson).glob("*.py"))
    ]
    found += [
        Expectation(lesson, "alternative", path, FULL, description_of(path))
        for path in sorted(kit.alternatives(lesson).glob("*.py"))
    ]
    return found


def weak_kind(path: Path) -> str:
    """ "non-chunker" or "public-only" for such a known mistake, else ""."""
    return next((kind for prefix, kind in WEAK_KINDS.items() if path.name.startswith(prefix)), "")


def as_notebook(expectation: Expectation, folder: Path) -> Expectation:
    """The same code handed in as the lesson notebook, its exercise cell filled in."""
    from chunklab.authoring.submission_notebook import write_submission_notebook

    path = folder / expectation.lesson.id / f"{expectation.path.stem}.ipynb"
    write_submission_notebook(
        expectation.lesson.id, decode_source(expectation.path.read_bytes(), path), path
    )
    return Expectation(
        expectation.lesson,
        f"{expectation.kind} notebook",
        path,
        expectation.expected,
        expectation.description,
    )


def judge(expectation: Expectation, report: GradeReport) -> Verdict:
    score = f"{report.score:g}/{report.max_score:g}"
    if report.status != "graded":
        return Verdict(
            expectation,
            False,
            score,
            f"not graded: {report.errors[0].message if report.errors else '?'}",
        )
    full = report.score == report.max_score > 0
    broken = [t for t in report.tests if t.outcome != "passed"]
    if expectation.expected == FULL:
        detail = "" if full else "failed: " + "; ".join(t.rule for t in broken[:3])
        return Verdict(expectation, full, score, detail)
    if expectation.expected == ZERO:
        crashed = [t for t in report.tests if t.outcome != "failed"]
        ok = report.score == 0 and not crashed
        detail = "" if ok else f"{len(crashed)} test(s) did not fail cleanly"
        return Verdict(expectation, ok, score, detail)
    if expectation.expected == AT_MOST:
        share = report.score / report.max_score if report.max_score else 0.0
        ok = share <= WEAK_LIMIT
        detail = f"{expectation.description} | {share:.0%} of the points"
        return Verdict(expectation, ok, score, detail if ok else f"{detail}: TOO MANY")
    caught = sorted({t.rule for t in broken})
    detail = (
        (f"{expectation.description} | caught by: " + "; ".join(caught))
        if caught
        else (f"{expectation.description} | NOT CAUGHT: it gets full marks")
    )
    return Verdict(expectation, not full, score, detail)


def notebook_problem(path: Path, timeout: float = 120) -> str:
    """Run a notebook on a real Jupyter kernel; what went wrong, or "" when it ran."""
    import nbformat
    from nbconvert.preprocessors import CellExecutionError, ExecutePreprocessor

    notebook = nbformat.read(path, as_version=4)
    runner = ExecutePreprocessor(timeout=timeout, kernel_name="python3")
    try:
        runner.preprocess(notebook, {"metadata": {"path": str(path.parent)}})
    except CellExecutionError as error:
        return f"a cell failed: {str(error).strip().splitlines()[-1]}"
    except Exception as error:  # no kernel installed, a kernel that died
        return (
            f"the notebook could not run ({type(error).__name__}: {error}); "
            "a Jupyter kernel comes with `pip install -e '.[test]'`"
        )
    return ""


def weak_figures(verdicts: list[Verdict]) -> str:
    """Per lesson, the highest score of any non-chunker and of any public-only submission."""
    lines = [f"\n== weak submissions (each kind may score {AT_MOST}) =="]
    for lesson in dict.fromkeys(v.expectation.lesson.id for v in verdicts):
        shown = []
        for kind in WEAK_KINDS.values():
            scores = [
                v.score
                for v in verdicts
                if v.expectation.lesson.id == lesson
                and v.expectation.expected == AT_MOST
                and weak_kind(v.expectation.path) == kind
            ]
            best = max(scores, key=score_share, default="")
            shown.append(
                f"highest {kind} {best} ({score_share(best):.0%})" if best else f"no {kind} known"
            )
        lines.append(f"{lesson}: " + ", ".join(shown))
    return "\n".join(lines).lstrip("\n") + "\n"


def score_share(score: str) -> float:
    """0.38 for "14/37"."""
    got, _, most = score.partition("/")
    return float(got) / float(most) if most and float(most) else 0.0
