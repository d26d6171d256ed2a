"""Workers in this process: a self-check where the sandbox cannot start, or in a notebook.

`InProcessZygote` stands in for the sandbox's zygote. The grading backend
drives its workers exactly as it drives real ones: the same requests, the
same time limits for loading and for each call, the same restart after a
timeout, and every message and answer through the same JSON round trip and
the same `Session` (so the same import policy). Each worker here keeps what
the submission prints to itself, cut at the same output limit, and gives it
an empty standard input as a worker has.

Each request runs on a thread of its own, so the submission's stack starts
as shallow as in a worker (the same room for recursion) and a call past its
time is stopped from outside. What this process cannot do as a worker does:
limit memory and processes, survive `os._exit`, or end code that catches
every exception in an endless loop (it is left running, unseen). `chunklab
check` uses the sandbox wherever it starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from chunklab.contract import Backend, CallTimedOut, WorkerCrashed
from chunklab.kit_texts import KitTexts
from chunklab.sandbox.call_watch import CallLimit, Reading, out_of_own_time
from chunklab.sandbox.cpu_time import CpuUse
from chunklab.sandbox.fitted_limits import WALL_CLOCK_MARGIN
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_main import Session
from chunklab.scoring.report import Isolation

# A fresh worker's recursion limit (Python's default). Each call runs on a thread of
# its own, whose stack is about as deep as a worker's, so the submission gets as many
# frames as when graded.
WORKER_RECURSION_LIMIT = 1000
# A call past its time is stopped this many times, this long apart, before it is left.
STOP_ATTEMPTS = 5
STOP_WAIT_SECONDS = 0.1


class CappedOutput(io.TextIOBase):
    """What a worker prints, kept up to `limit` characters, as a worker's output pipe is."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept: list[str] = []
        self.size = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.total += len(text)
        if self.size < self.limit:
            piece = text[: self.limit - self.size]
            self.kept.append(piece)
            self.size += len(piece)
        return len(text)

    @property
    def was_cut(self) -> bool:
        return self.total > self.limit


class InProcessWorker:
    """One submission's `Session` in this process, answering requests with a time limit each."""

    def __init__(self, namespace: dict[str, Any] | None, output_limit: int) -> None:
        self.session = Session(texts=KitTexts())
        if namespace is not None:
            self.session.namespace.update(namespace)
        self.output = CappedOutput(output_limit)
        self.alive = True
        self.interrupted = False
        self.recursion_limit = WORKER_RECURSION_LIMIT
        self.queued: deque[dict[str, Any]] = deque()
        self.limit: CallLimit | Callable[[], CallLimit] | None = None

    def watch_next(
        self, limit: CallLimit | Callable[[], CallLimit], *, from_start: bool = False
    ) -> None:
        """The next call's own limit, as a worker takes it; here it bounds wall-clock time."""
        self.limit = limit

    def new_test(self) -> None:
        """Answers here are the process's own values: there is no budget to reset."""

    def own_mark(self) -> Reading:
        # The self-check's calls run on threads of this process: own time is wall-clock
        # time, and the CPU time counted is this process's.
        return Reading(time.monotonic(), CpuUse(None, time.process_time()))

    def own_seconds_since(self, mark: Reading) -> float:
        return time.monotonic() - mark.now

    def spent_since(self, mark: Reading) -> tuple[float, float]:
        seconds = time.monotonic() - mark.now
        return seconds, seconds

    def cpu_seconds_since(self, mark: Reading) -> float | None:
        return time.process_time() - (mark.cpu.group or 0.0)

    def own_seconds(self, timeout: float) -> tuple[float, str | None]:
        """The next call's wall-clock limit here, and the message grading would give.

        A thread's wait for the CPU cannot be told apart from its work, so the
        own time is stretched as grading stretches it where it cannot tell either;
        the message names the own time, as grading's does.
        """
        limit = self.limit() if callable(self.limit) else self.limit
        self.limit = None
        if limit is None or limit.own_seconds >= timeout:
            return timeout, None
        seconds = min(timeout, limit.own_seconds * WALL_CLOCK_MARGIN)
        return seconds, out_of_own_time()

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.send(message, timeout)
        return self.answer(timeout)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        message = json.loads(json.dumps(message))
        self.queued.extend(message["calls"] if message["op"] == "calls" else [message])

    def answer(self, timeout: float) -> dict[str, Any]:
        """The answer to the next request, if it comes within `timeout` seconds."""
        if not self.alive:
            raise WorkerCrashed("The self-check stopped running your code after an earlier error.")
        message = self.queued.popleft()
        try:
            with self.worker_like():
                seconds, message_if_late = self.own_seconds(timeout)
                answer = within(seconds, lambda: self.run(message), message_if_late)
        except CallTimedOut:
            # A real worker is ended here; the next request starts a fresh one.
            self.kill()
            raise
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        return json.loads(json.dumps(answer))

    def run(self, message: dict[str, Any]) -> dict[str, Any]:
        """The request's answer; runs on the call's own thread."""
        outer_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(self.recursion_limit)
        try:
            if message["op"] == "load":
                return self.session.load(message["cells"], message.get("local_modules", ()))
            return self.session.call(message)
        finally:
            # The submission may have set its own limit, as it could in a worker.
            self.recursion_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(outer_limit)

    @contextlib.contextmanager
    def worker_like(self) -> Iterator[None]:
        """Printed output captured and no standard input, as in a worker."""
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), self.output, self.output
        try:
            yield
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved

    def printed(self) -> str:
        return "".join(self.output.kept)

    def kill(self) -> None:
        self.alive = False
        self.queued.clear()


class InProcessBackend(Backend):
    """A submission's `Session` behind plain requests, with no limits: for the kit's own tests."""

    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        self.session = Session(texts=KitTexts())
        if namespace is not None:
            self.session.namespace.update(namespace)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message = json.loads(json.dumps(message))
        started = time.process_time()
        if message["op"] == "load":
            answer = self.session.load(message["cells"], message.get("local_modules", ()))
        else:
            answer = self.session.call(message)
        answer = json.loads(json.dumps(answer))
        if "digest" in message:
            # As the sandbox's backend says it of a call asked by digest: its CPU time.
            answer["cpu_seconds"] = time.process_time() - started
        return answer


class InProcessZygote:
    """Makes in-process workers for the grading backend, as the sandbox's zygote makes real ones.

    With a `namespace` (a notebook kernel's globals), each worker starts from it
    instead of running cells.
    """

    isolation: Isolation = ""  # a report's "isolation": none
    # No sandbox at all (the student's own code in their own process): "" says so.
    gaps: tuple[str, ...] = ()

    def __init__(self, limits: Limits, namespace: dict[str, Any] | None = None) -> None:
        self.limits = limits
        self.namespace = namespace
        self.workers: list[InProcessWorker] = []

    def spawn(self) -> InProcessWorker:
        namespace = dict(self.namespace) if self.namespace is not None else None
        self.workers.append(InProcessWorker(namespace, self.limits.output_kb * 1024))
        return self.workers[-1]

    @property
    def interrupted(self) -> bool:
        """Whether the person stopped a call (the run then stops, and so must the self-check)."""
        return any(worker.interrupted for worker in self.workers)

    def close(self) -> None:
        pass


class StopCall(BaseException):
    """Raised inside a call that ran out of time; `except Exception` lets it by."""


class CallThread(threading.Thread):
    """One request, run on a thread of its own: a fresh stack, as shallow as a worker's."""

    def __init__(self, work: Callable[[], dict[str, Any]]) -> None:
        super().__init__(name="chunklab-submission", daemon=True)
        self.work = work
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.at_worker_depth()
        except BaseException as error:  # handed to the caller's thread
            self.error = error

    def at_worker_depth(self) -> dict[str, Any]:
        # One frame more, so the call sits as deep as in a worker (whose zygote runs
        # from a bootstrap line): the submission gets exactly as many frames.
        return self.work()

    def stop(self) -> None:
        """Raise `StopCall` in the thread, at its next Python instruction."""
        if self.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.ident), ctypes.py_object(StopCall)
            )


def within(
    seconds: float, work: Callable[[], dict[str, Any]], message_if_late: str | None = None
) -> dict[str, Any]:
    """`work()`, run on its own thread and stopped with `CallTimedOut` after `seconds`.

    The stop is raised again a few times in case the code catches it; code that
    catches it every time, or waits inside one long C call, runs on unseen while
    the self-check goes on. A Ctrl-C while waiting stops the call and is raised.
    """
    thread = CallThread(work)
    thread.start()
    try:
        thread.join(seconds)
    except KeyboardInterrupt:
        thread.stop()
        raise
    if thread.is_alive():
        for _ in range(STOP_ATTEMPTS):
            thread.stop()
            thread.join(STOP_WAIT_SECONDS)
            if not thread.is_alive():
                break
        raise CallTimedOut(
            message_if_late or f"Your code did not finish within {seconds:g} seconds."
        )
    if thread.error is not None:
        raise thread.error
    assert thread.result is not None
    return thread.result
