"""What the grading process holds while a hostile submission answers, and what a worker costs.

Run from the kit's folder, with the kit installed:

    python benchmarks/hostile_answers.py

For each hostile answer (a 30 MB string, a list nested 100,000 deep, 3
million empty dicts, 6 million short strings; the last three written by the
submission straight onto its answer pipe, as a patched worker would), it
prints what the call gave, the peak memory Python allocated in the grading
process meanwhile (tracemalloc), the rise of its resident high-water mark,
and the time. Then the time to start, load and end one worker, with and
without namespaces.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable

from chunklab.contract import WorkerCrashed
from chunklab.reading.source import CodeCell
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import SubmissionProxy

SOURCE = """
import os

def text(megabytes):
    return "y" * (megabytes * 1024 * 1024)

def forge(kind):
    body = {
        "deep": b"[" * 100000 + b"]" * 100000,
        "wide": b"[" + b"{}," * 3000000 + b"{}]",
        "strings": b"[" + b'"ab",' * 6000000 + b'"ab"]',
    }[kind]
    os.write(4, b'{"ok": ' + body + b"}\\n")
    os._exit(0)
"""
CASES: list[tuple[str, Callable[[SubmissionProxy], object]]] = [
    ("a 30 MB string", lambda proxy: proxy.text(30)),
    ("a list nested 100,000 deep", lambda proxy: proxy.forge("deep")),
    ("3 million empty dicts (9 MB of JSON)", lambda proxy: proxy.forge("wide")),
    ("6 million short strings (30 MB of JSON)", lambda proxy: proxy.forge("strings")),
]
LIMITS = Limits(call_seconds=10, submission_seconds=60)


def high_water_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return 0.0


def reset_high_water() -> None:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def hostile_answers(zygote: Zygote) -> None:
    for label, call in CASES:
        backend = SandboxBackend(zygote, (CodeCell(0, "submission.py", SOURCE),), LIMITS)
        backend.load()
        proxy = SubmissionProxy(backend)
        gc.collect()
        reset_high_water()
        before = high_water_mb()
        tracemalloc.start()
        started = time.monotonic()
        try:
            value = call(proxy)
            outcome = f"returned a value of length {len(value)}"  # type: ignore[arg-type]
        except WorkerCrashed as error:
            outcome = "refused: " + str(error).splitlines()[-1]
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        seconds = time.monotonic() - started
        value = None
        backend.close()
        print(f"{label}: {outcome}")
        print(
            f"    peak allocated {peak / 2**20:.1f} MB, resident high-water "
            f"+{high_water_mb() - before:.1f} MB, {seconds:.2f} s"
        )


def worker_cost(namespaces: bool, count: int = 50) -> None:
    with Zygote(ZygoteSettings(LIMITS, namespaces=namespaces)) as zygote:
        zygote.greeting()
        started = time.perf_counter()
        for _ in range(count):
            cells = (CodeCell(0, "submission.py", "def f():\n    pass\n"),)
            backend = SandboxBackend(zygote, cells, LIMITS)
            backend.load()
            backend.close()
        each = (time.perf_counter() - started) / count * 1000
        gaps = ", ".join(zygote.gaps) or "none"
        print(f"one worker, {zygote.isolation} (gaps: {gaps}): {each:.1f} ms to start, load, end")


def main() -> None:
    with Zygote(ZygoteSettings(LIMITS)) as zygote:
        hostile_answers(zygote)
    worker_cost(namespaces=True)
    worker_cost(namespaces=False)


if __name__ == "__main__":
    main()
