"""How the long-document rule sees each file: its own CPU time on the long text and on its
first tenth, measured in a real worker as the hidden check measures it, and the ratio.

    python benchmarks/long_document_growth.py [--timings N] [FILE ...]

Without files: every reference, valid alternative and known mistake whose work grows
with the square of the text or that recurses. The check passes a ratio of at most
MOST_GROWTH (printed); a file that raises or runs out of time shows that instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from chunklab.contract import CallTimedOut, CodeCell
from chunklab.kit_texts import LONG_LENGTH, SHORT_LENGTH
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy
from chunklab.suites.long_texts import LONG_TEXT_SECONDS, MOST_GROWTH, long_text

KIT = Path(__file__).resolve().parent.parent
SOLUTIONS = KIT / "solutions"
# The known mistakes the rule is there to catch.
GROWING_MISTAKES = (
    "char_chunk/list_rebuilt_at_every_step.py",
    "char_chunk/recursive_windows.py",
    "word_chunk/counts_words_so_far_every_step.py",
    "word_chunk/islice_from_the_start_every_window.py",
    "word_chunk/recursive_chunks.py",
    "chunking_pipeline/spans_list_rebuilt_every_step.py",
    "chunking_pipeline/recursive_cutting.py",
)


def default_files() -> list[Path]:
    files = sorted(SOLUTIONS.glob("*.py")) + sorted(SOLUTIONS.glob("alternatives/*/*.py"))
    return files + [SOLUTIONS / "mistakes" / name for name in GROWING_MISTAKES]


def lesson_of(path: Path) -> str:
    kinds = ("alternatives", "mistakes")
    return path.parent.name if path.parent.parent.name in kinds else path.stem


def long_call(proxy: SubmissionProxy, lesson: str) -> tuple[Any, tuple]:
    """The submission's function (or method) the check calls, and its settings."""
    if lesson == "char_chunk":
        return proxy.chunk, (10, 2)
    if lesson == "word_chunk":
        return proxy.solve, (3, 1)
    pipe = proxy.ChunkingPipeline(chunk_size=20, overlap=2, min_chunk_size=0)
    return pipe.chunk_text, ()


def least_seconds(proxy: SubmissionProxy, lesson: str, length: int, timings: int) -> float:
    fn, settings = long_call(proxy, lesson)
    measured = fn.measuring(None)
    seconds = []
    for _ in range(timings):
        _, cpu = measured(long_text(length), *settings)
        seconds.append(cpu)
    return min(seconds)


def measure(zygote: Zygote, path: Path, timings: int) -> str:
    backend = SandboxBackend(zygote, (CodeCell(0, path.name, path.read_text()),), Limits())
    try:
        backend.load()
        proxy = SubmissionProxy(backend)
        proxy.begin_test(LONG_TEXT_SECONDS)
        lesson = lesson_of(path)
        long_seconds = least_seconds(proxy, lesson, LONG_LENGTH, timings)
        short_seconds = least_seconds(proxy, lesson, SHORT_LENGTH, timings)
    except CallTimedOut:
        return "out of time on the long text"
    except Exception as error:  # the submission's own exception, raised again here
        return f"raised {type(error).__name__}"
    finally:
        backend.close()
    ratio = long_seconds / short_seconds
    verdict = "passes" if ratio <= MOST_GROWTH else "fails"
    return (
        f"{short_seconds * 1000:8.2f} ms {long_seconds * 1000:9.2f} ms  "
        f"x{ratio:6.1f}  {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--timings", type=int, default=3, help="timings of each text; least kept")
    args = parser.parse_args()
    files = args.files or default_files()
    print(f"most growth passed: x{MOST_GROWTH:g}; least of {args.timings} timings each")
    print(f"{'file':62} {SHORT_LENGTH:>11,} {LONG_LENGTH:>12,}")
    with Zygote(ZygoteSettings(Limits())) as zygote:
        for path in files:
            inside = SOLUTIONS in path.resolve().parents
            shown = str(path.resolve().relative_to(SOLUTIONS)) if inside else str(path)
            print(f"{shown:62} {measure(zygote, path, args.timings)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
