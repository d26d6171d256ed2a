"""A call's time limit that fits the call: what the reference solution needs for it, with room.

The grading process holds the reference solution. For each call a grader
test makes into a submission, the reference makes the same call (on objects
it made with the same arguments, for a class) and its own CPU time is
measured, once per submission and kept for that submission's calls only: a
measurement made while another submission ran (what its worker did to the
machine's caches, what it left for the collector) never sets this one's
limits. The submission's limit is then a floor (for a slow start: the first
call after a fresh start may import a module) plus `FACTOR` times the
reference's time, and never more than `--call-seconds`. A correct solution
many times slower than the reference stays far inside it; a loop is stopped
in a fraction of a second.
"""

from __future__ import annotations

import gc
import hashlib
import json
import time
from types import ModuleType
from typing import Any

from chunklab.kit_texts import call_arguments
from chunklab.sandbox.call_watch import counts_cpu
from chunklab.sandbox.limits import Limits

# A correct solution ten times slower than the reference still has five times the time it needs.
FACTOR = 50.0
# Once a submission has run out of time, its worker is known to spin: later calls get
# this share of the floor, counted from their start (what a call needs on top of the
# reference's time is unchanged).
SPINNING_SHARE = 0.1
# Where a worker's CPU time cannot be read (not Linux), own time is wall-clock time,
# which a busy machine stretches: floors are this many times longer.
WALL_CLOCK_MARGIN = 5.0
# Running a submission's cells (imports, definitions, a notebook's demos) gets this
# much own time; far more than a lesson's code needs at its top level.
LOAD_SECONDS = 0.25
# Keys of calls with long arguments are digests, and at most this many times are kept
# for a submission (a check may feed its own answers back): what a grading process
# keeps stays small however many calls a submission makes.
LONG_KEY = 1024
MOST_KEPT = 20_000
# Each call is timed on the reference this many times, the least counting: one timing slowed
# by the machine would loosen the limit of every call of the submission like it.
MEASURES = 3


def fitted(limits: Limits) -> bool:
    """Fitted limits are on unless the floor is no lower than the ceiling (fixed limits)."""
    return limits.call_floor_seconds < limits.call_seconds


def floor_margin() -> float:
    return 1.0 if counts_cpu() else WALL_CLOCK_MARGIN


def call_seconds(
    limits: Limits, reference_seconds: float | None, *, spinning: bool, stated: float | None
) -> float:
    """The own time one call may take (see the module's docstring)."""
    if stated is not None:
        return min(stated, limits.call_seconds)
    if not fitted(limits):
        return limits.call_seconds
    floor = limits.call_floor_seconds * floor_margin() * (SPINNING_SHARE if spinning else 1.0)
    return min(limits.call_seconds, floor + FACTOR * (reference_seconds or 0.0))


def load_seconds(limits: Limits) -> float:
    """The own time running a submission's cells may take."""
    if not fitted(limits):
        return max(5.0, limits.call_seconds)
    return LOAD_SECONDS * floor_margin()


class ReferenceTimes:
    """The reference solution a grading process times calls on, a submission at a time."""

    def __init__(self, module: ModuleType | None) -> None:
        self.module = module

    def mirror(self) -> ReferenceMirror:
        return ReferenceMirror(self)


def call_key(message: dict[str, Any]) -> str:
    text = json.dumps(
        [message.get("op"), message.get("name"), message.get("args"), message.get("kwargs")]
    )
    return text if len(text) <= LONG_KEY else "#" + hashlib.blake2b(text.encode()).hexdigest()


class ReferenceMirror:
    """One submission's calls made on the reference too; its objects by the same handles."""

    def __init__(self, times: ReferenceTimes) -> None:
        self.times = times
        # handle -> (the call that made it, the reference's object once made)
        self.objects: dict[int, tuple[dict[str, Any], Any]] = {}
        # The reference's time on each call of this submission timed so far.
        self.known: dict[str, float | None] = {}

    def note(self, message: dict[str, Any]) -> None:
        """Every call, as it is made: the objects it makes are named in later calls."""
        if message.get("op") == "new" and "handle" in message:
            self.objects[message["handle"]] = (message, None)

    def seconds(self, message: dict[str, Any]) -> float | None:
        """The reference's time on this call, or None where it has none."""
        if self.times.module is None:
            return None
        key = call_key(message)
        op = message.get("op")
        if op == "method":
            made = self.objects.get(message.get("handle", -1))
            if made is None:
                return None
            key = f"{call_key(made[0])}.{key}"
        if op == "new" and message.get("handle") not in self.objects:
            self.note(message)
        if key in self.known:
            return self.known[key]
        seconds = self._measure(message)
        if len(self.known) >= MOST_KEPT:
            self.known.clear()
        self.known[key] = seconds
        return seconds

    def _measure(self, message: dict[str, Any]) -> float | None:
        """The least of `MEASURES` timings of the call, the grading process's collector off.

        A collection started by what earlier submissions left in this process would
        otherwise count as the reference's time, and loosen the limit far past what
        the call needs (a tenth of a second became two in a crafted class).
        """
        timings: list[float] = []
        made: Any = None
        collecting = gc.isenabled()
        gc.disable()
        try:
            target = self._target(message)
            for _ in range(MEASURES):
                # Fresh copies of the arguments: the reference must not change the test's.
                args, kwargs = json.loads(
                    json.dumps([call_arguments(message), message.get("kwargs", {})])
                )
                started = time.thread_time()
                made = target(*args, **kwargs)
                timings.append(time.thread_time() - started)
        except Exception:
            return None
        finally:
            if collecting:
                gc.enable()
        if message.get("op") == "new":
            self.objects[message["handle"]] = (message, made)
        return min(timings)

    def _target(self, message: dict[str, Any]) -> Any:
        if message.get("op") != "method":
            return getattr(self.times.module, message["name"])
        call, made = self.objects[message["handle"]]
        if made is None:
            # The object's making was not timed here (it was known): make it now.
            args, kwargs = json.loads(json.dumps([call.get("args", []), call.get("kwargs", {})]))
            made = getattr(self.times.module, call["name"])(*args, **kwargs)
            self.objects[message["handle"]] = (call, made)
        return getattr(made, message["name"])
