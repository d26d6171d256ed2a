"""The backend grader tests talk to: one submission, in a worker, within its limits.

Each call's limit fits the call (see `fitted_limits`) and counts its own CPU
time; the clock is only a generous ceiling. A worker that times
out or dies is replaced (the submission's code is run again in a fresh one)
so the remaining tests still run, each on its own; once a submission has run
out of time, it is known to spin, and later calls get a shorter floor; once a
call has been stopped by the clock, it is known to wait, and later calls that
compute little get a shorter clock. Once the submission's total time (loading
it and its calls) is spent, every further call fails at once.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from chunklab.contract import (
    Backend,
    CallTimedOut,
    CallWaited,
    CodeCell,
    ProtocolBroken,
    SubmissionTimeSpent,
    WorkerCrashed,
)
from chunklab.errors import BrokenProtocolError, SubmissionTimeoutError, WorkerDiedError
from chunklab.sandbox import fitted_limits
from chunklab.sandbox.answer_shape import STOPPED, LoadAnswer, load_answer
from chunklab.sandbox.call_watch import WALL_FACTOR, CallLimit, Reading
from chunklab.sandbox.fitted_limits import ReferenceTimes
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_kind import Worker, Workers

# Running a submission's cells may import modules; its wall-clock ceiling.
LOAD_SECONDS_FLOOR = 5.0
# A worker started again may take this many times the first load's own-time limit.
RELOAD_MARGIN = 2.0
# The inputs to try a submission's code is stopped on before no more are asked: code
# that loops on a few of them likely loops on the rest (see `request_tries`).
MOST_TRY_STOPS = 10
# The own time all the calls of the inputs to try may take at most, in calls' limits,
# and their time by the clock, in that own time: the child stops each call's waits.
TRIES_SHARE = 2.5
TRIES_WALL_FACTOR = 3.0
# All of a submission's requests may take this many times its own time limit by the clock.
SUBMISSION_WALL_FACTOR = 3.0


class SandboxBackend(Backend):
    def __init__(
        self,
        zygote: Workers,
        cells: tuple[CodeCell, ...],
        limits: Limits,
        reference: ReferenceTimes | None = None,
        local_modules: tuple[str, ...] = (),
    ) -> None:
        self.zygote = zygote
        self.cells = [cell.to_message() for cell in cells]
        self.cell_indexes = tuple(cell.index for cell in cells)
        # The student's own modules, which the import policy lets the code import.
        self.local_modules = list(local_modules)
        self.limits = limits
        self.reference = (reference or ReferenceTimes(None)).mirror()
        self.worker: Worker | None = None
        # The submission's own time so far (CPU, as its calls' own time), and by the clock
        # less its waits for a CPU.
        self.spent = 0.0
        self.spent_wall = 0.0
        self.timed_out_in_test = False
        # Set by a first time-out: the worker is known to spin.
        self.spinning = False
        # Set by a first call stopped by the clock: the worker is known to wait.
        self.waiting = False
        # A limit the running grader test states for each of its calls.
        self.stated_seconds: float | None = None
        # A lower limit the test set for its next call only, and whether the last call's
        # limit was that one (a call stopped there is not a submission that spins).
        self.next_cap: float | None = None
        self.capped = False
        self.output_was_cut = False
        # Own time a call asked by digest spent, which the request for its answer continues.
        self.carried_seconds = 0.0
        self.carried_wall = 0.0
        self.carried_cap: float | None = None
        # Why the submission's answers are no longer trusted, once one broke the protocol.
        self.broken = ""
        # What the first load defined: a worker started again must define it too, or later
        # calls would blame the code for names it did define.
        self.first_load: LoadAnswer | None = None

    def load(self) -> LoadAnswer:
        """Run the submission's cells in a new worker; what they defined and what failed."""
        try:
            self.first_load = self._start_worker(self._load_seconds())
            return self.first_load
        except ProtocolBroken as broken:
            raise BrokenProtocolError(str(broken)) from None
        except CallTimedOut:
            raise SubmissionTimeoutError(
                f"running your code took longer than {self._load_seconds():.2g} seconds before "
                "any test could start; look for a loop or a long computation outside your "
                "functions"
            ) from None
        except WorkerCrashed:
            raise WorkerDiedError(
                "your code ended the process running it while it was being loaded "
                "(an exit() call, or a memory or CPU limit at the top level of your file)"
            ) from None

    def _load_seconds(self) -> float:
        return min(fitted_limits.load_seconds(self.limits), self._load_ceiling())

    def _load_ceiling(self) -> float:
        ceiling = max(LOAD_SECONDS_FLOOR, self.limits.call_seconds)
        return min(ceiling, max(0.0, self._wall_left()))

    def _start_worker(self, seconds: float) -> LoadAnswer:
        """A fresh worker with the cells run in it within `seconds` of own time; the time it
        takes counts as the submission's."""
        self.worker = worker = self.zygote.spawn()
        started = time.monotonic()
        worker.watch_next(CallLimit(seconds, self.limits.memory_mb))
        mark = worker.own_mark()
        try:
            answer = worker.request(
                {
                    "op": "load",
                    "cells": self.cells,
                    "local_modules": self.local_modules,
                    # Within this own time a slow cell is stopped and the others still run.
                    "seconds": seconds,
                },
                max(seconds, self._load_ceiling()),
            )
            return load_answer(answer, self.cell_indexes)
        except ProtocolBroken as broken:
            self.broken = str(broken)
            worker.kill()
            raise
        finally:
            self._spend(worker, started, mark)

    def begin_test(self, stated_seconds: float | None = None) -> None:
        """A new grader test: an earlier test's time-out is forgotten; its own limit, if stated."""
        self.timed_out_in_test = False
        self.stated_seconds = stated_seconds
        if self.worker is not None:
            self.worker.new_test()  # the answers budget is one test's

    def cap_next_call(self, seconds: float) -> None:
        self.next_cap = seconds

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """The answer to one call; a call asked by digest, and the request for its kept
        answer, also say the CPU time they took (`cpu_seconds`: the worker's every thread
        and process, measured from here)."""
        cap, self.next_cap = self.next_cap, None
        if message["op"] == "kept":
            cap = self.carried_cap  # the call it finishes was capped so: what is left of it
        self.capped = False
        worker = self._ready_worker()
        self.reference.note(message)
        worker.watch_next(partial(self._own_limit, message, cap), from_start=self.spinning)
        started = time.monotonic()
        mark = worker.own_mark()
        # The request for a kept answer finishes the call before it: within what is left.
        ceiling = self._call_seconds() - (self.carried_wall if message["op"] == "kept" else 0.0)
        try:
            answer = worker.request(message, max(0.0, ceiling))
            if "digest" in message or message["op"] == "kept":
                answer = {**answer, "cpu_seconds": worker.cpu_seconds_since(mark)}
            return answer
        except CallTimedOut as stopped:
            if not self.capped:
                self._timed_out(stopped)
            raise
        except ProtocolBroken as broken:
            self.broken = str(broken)
            raise
        finally:
            self._spend(worker, started, mark)
            # The request for the answer itself finishes this call: it gets what is left,
            # of its own time (counted as the call's watch counts it) and of the clock's.
            asked_by_digest = "digest" in message
            self.carried_seconds = worker.own_seconds_since(mark) if asked_by_digest else 0.0
            self.carried_wall = time.monotonic() - started if asked_by_digest else 0.0
            self.carried_cap = cap if asked_by_digest else None

    def _own_limit(self, message: dict[str, Any], cap: float | None = None) -> CallLimit:
        # A limit the test states is used as it is: the reference is not timed for it.
        stated = self.stated_seconds
        seconds = fitted_limits.call_seconds(
            self.limits,
            self.reference.seconds(message) if stated is None else None,
            spinning=self.spinning,
            stated=stated,
        )
        if cap is not None and cap < seconds:
            seconds, self.capped = cap, True
        if message.get("op") == "kept":
            seconds = max(0.0, seconds - self.carried_seconds)
        return CallLimit(seconds, self.limits.memory_mb, known_to_wait=self.waiting)

    def _timed_out(self, stopped: CallTimedOut) -> None:
        self.timed_out_in_test = True
        self.spinning = True
        self.waiting = self.waiting or isinstance(stopped, CallWaited)

    def request_many(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        """Several calls sent at once, each with its own time limit.

        The outcomes come in order: an answer for each call, up to a call that
        timed out or ended the worker, whose error is the last outcome.
        """
        worker = self._ready_worker()
        outcomes: list[dict[str, Any] | Exception] = []
        for message in messages:
            self.reference.note(message)
        # Each call's limit is worked out only if the call is still running at a first look.
        watches = [partial(self._own_limit, message) for message in messages]
        started = time.monotonic()
        worker.watch_next(watches[0], from_start=self.spinning)
        mark = worker.own_mark()
        try:
            worker.send({"op": "calls", "calls": messages}, self._call_seconds())
            for watch in watches:
                if self._wall_left(time.monotonic() - started) <= 0:
                    worker.kill()  # still busy with calls no one will wait for
                    outcomes.append(self._budget_spent())
                    break
                worker.watch_next(watch, from_start=self.spinning)
                outcomes.append(worker.answer(self._call_seconds(time.monotonic() - started)))
        except (CallTimedOut, WorkerCrashed) as error:
            # Noted for later calls only if the test makes this call (`met`).
            outcomes.append(error)
        finally:
            self._spend(worker, started, mark)
        return outcomes

    def request_tries(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        """The calls of the inputs to try, in one request and one answer (see `Backend`).

        The worker, which has run the cells and nothing else yet, makes them in a
        child of its own, which ends once it has answered: what the calls leave in
        a process (a cache, a list kept at the top level) reaches no test, so no
        score depends on them. Each call gets the floor of a fitted limit, which
        the child keeps itself (a try is a call on a few words), and `WALL_FACTOR`
        times that by the clock; once one is stopped, later ones get a tenth of it,
        and after `MOST_TRY_STOPS` none is made; code that goes on once stopped is
        ended. The grader keeps the whole request within the floors of all its calls,
        and at most `TRIES_SHARE` times one call's limit (`--call-seconds`), and
        `TRIES_WALL_FACTOR` times that by the clock: code that will not be stopped
        loses its tries, and its tests start in a new worker. None of that time is the
        submission's own: what the tries cost changes no test's limits.
        """
        worker = self._ready_worker()
        each = fitted_limits.call_seconds(self.limits, None, spinning=False, stated=None)
        own = min(len(messages) * each, TRIES_SHARE * self.limits.call_seconds)
        # Known to wait: the child stops each call's wait itself, after a tenth of the
        # time this allows a wait.
        own = max(own, WALL_FACTOR * each)
        worker.watch_next(CallLimit(own, self.limits.memory_mb, known_to_wait=True))
        request = {
            "op": "tries",
            "calls": messages,
            "seconds": each,
            "after_a_stop": each * fitted_limits.SPINNING_SHARE,
            "most_stops": MOST_TRY_STOPS,
            "wall_factor": WALL_FACTOR,
        }
        try:
            answer = worker.request(request, TRIES_WALL_FACTOR * own)
        except (CallTimedOut, WorkerCrashed) as error:
            return [error]
        finally:
            if not worker.alive:
                self._note_output(worker)
        return [
            CallTimedOut("Your code did not finish within its time.") if one == STOPPED else one
            for one in answer["answers"]
        ]

    def met(self, error: Exception) -> None:
        if isinstance(error, ProtocolBroken):
            self.broken = str(error)
        elif isinstance(error, CallTimedOut) and not isinstance(error, SubmissionTimeSpent):
            self._timed_out(error)

    def _ready_worker(self) -> Worker:
        if self.broken:
            raise ProtocolBroken(self.broken)
        if self.spent >= self.limits.submission_seconds or self._wall_left() <= 0:
            raise self._budget_spent()
        if self.timed_out_in_test:
            raise CallTimedOut("An earlier call in this check did not finish in time.")
        if self.worker is None or not self.worker.alive:
            self._replace_worker()
        assert self.worker is not None
        return self.worker

    def _budget_spent(self) -> CallTimedOut:
        return SubmissionTimeSpent(
            f"The time for your whole submission ({self.limits.submission_seconds:g} s) "
            "ran out before this check."
        )

    def _call_seconds(self, spending: float = 0.0) -> float:
        """One call's wall-clock ceiling, within what is left of the submission's clock.

        Generous: a call's own limit and the ceiling in proportion to it are its
        watch's (call_watch.py); this one only bounds a worker that is not watched.
        """
        return min(10 * WALL_FACTOR * self.limits.call_seconds, self._wall_left(spending))

    def _wall_left(self, spending: float = 0.0) -> float:
        """What is left of the submission's wall-clock ceiling."""
        ceiling = SUBMISSION_WALL_FACTOR * self.limits.submission_seconds
        return ceiling - self.spent_wall - spending

    def _spend(self, worker: Worker, started: float, mark: Reading) -> None:
        """Count a request's own time (CPU) and its time by the clock as the submission's."""
        own, waiting = worker.spent_since(mark)
        self.spent += max(0.0, own)
        # By the clock, less the waits for a CPU: a busy machine does not spend it.
        self.spent_wall += waiting if worker.alive else time.monotonic() - started
        if not worker.alive:
            self._note_output(worker)

    def _replace_worker(self) -> None:
        again = "Your code could not be started again after an earlier failure"
        try:
            # Loaded once within its limit already: a load near the limit is not failed
            # again by how the machine's timing falls.
            loaded = self._start_worker(RELOAD_MARGIN * self._load_seconds())
        except ProtocolBroken:
            raise
        except (CallTimedOut, WorkerCrashed):
            raise WorkerCrashed(f"{again}.") from None
        # A cell stopped at its limit the first time may get further now (it has more
        # time): only a name the first load defined and this one did not is a difference.
        lost = sorted(self.first_load.defined - loaded.defined) if self.first_load else []
        if lost:
            assert self.worker is not None
            self.worker.kill()
            # Only names as Python writes them are shown: a key the code put in its globals
            # could hold anything, a line of feedback included.
            shown = [name for name in lost if name.isidentifier()][:3] or ["a name"]
            raise WorkerCrashed(
                f"{again}: run again, your cells did not define {', '.join(shown)} as they "
                "did the first time (look for code at the top level that depends on time "
                "or files, or that is slow)."
            )

    def _note_output(self, worker: Worker) -> None:
        self.output_was_cut = self.output_was_cut or worker.output.was_cut

    def close(self) -> str:
        """End the worker; what the submission printed (cut at the output limit)."""
        if self.worker is None:
            return ""
        self.worker.kill()
        self._note_output(self.worker)
        return self.worker.printed()
