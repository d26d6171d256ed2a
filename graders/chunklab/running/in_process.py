"""Workers in this process: a self-check where the sandbox cannot start, or in a notebook.

`InProcessZygote` stands in for the sandbox's zygote. The grading backend
drives its workers exactly as it drives real ones: the same requests, the
same time limits for loading and for each call, the same restart after a
timeout, and every message and answer through the same JSON round trip and
the same `Session` (so the same import policy). Each worker here keeps what
the submission prints to itself, cut at the same output limit, and gives it
an empty standard input as a worker has.

What this process cannot do as a worker does: limit memory and processes,
survive `os._exit`, or stop code that catches every exception in an endless
loop. `chunklab check` uses the sandbox wherever it starts.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator
from threading import current_thread, main_thread
from types import FrameType
from typing import Any

from chunklab.running.call_errors import CallTimedOut, WorkerCrashed
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_main import Session

# A fresh worker's recursion limit (Python's default): a self-check gives the
# submission as many frames as grading does, however deep its own stack is.
WORKER_RECURSION_LIMIT = 1000
# Frames a worker's own code holds below a call into the submission.
WORKER_FRAMES = 4


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
        self.session = Session()
        if namespace is not None:
            self.session.namespace.update(namespace)
        self.output = CappedOutput(output_limit)
        self.alive = True
        self.interrupted = False
        self.recursion_limit = WORKER_RECURSION_LIMIT
        self.queued: deque[dict[str, Any]] = deque()

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
            answer = within(timeout, lambda: self.run(message))
        except CallTimedOut:
            # A real worker is ended here; the next request starts a fresh one.
            self.kill()
            raise
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        return json.loads(json.dumps(answer))

    def run(self, message: dict[str, Any]) -> dict[str, Any]:
        with self.worker_like():
            if message["op"] == "load":
                return self.session.load(message["cells"], message.get("local_modules", ()))
            return self.session.call(message)

    @contextlib.contextmanager
    def worker_like(self) -> Iterator[None]:
        """Printed output captured, no standard input, the worker's recursion limit."""
        saved = sys.stdin, sys.stdout, sys.stderr
        outer_limit = sys.getrecursionlimit()
        extra = max(0, stack_depth() - WORKER_FRAMES)
        sys.setrecursionlimit(self.recursion_limit + extra)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), self.output, self.output
        try:
            yield
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
            # The submission may have set its own limit, as it could in a worker.
            if sys.getrecursionlimit() != self.recursion_limit + extra:
                self.recursion_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(outer_limit)

    def printed(self) -> str:
        return "".join(self.output.kept)

    def kill(self) -> None:
        self.alive = False
        self.queued.clear()


class InProcessBackend:
    """A submission's `Session` behind plain requests, with no limits: for the kit's own tests."""

    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        self.session = Session()
        if namespace is not None:
            self.session.namespace.update(namespace)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message = json.loads(json.dumps(message))
        if message["op"] == "load":
            answer = self.session.load(message["cells"], message.get("local_modules", ()))
        else:
            answer = self.session.call(message)
        return json.loads(json.dumps(answer))


def stack_depth() -> int:
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


class InProcessZygote:
    """Makes in-process workers for the grading backend, as the sandbox's zygote makes real ones.

    With a `namespace` (a notebook kernel's globals), each worker starts from it
    instead of running cells.
    """

    isolation = ""  # a report's "isolation": none

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


def within(seconds: float, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`work()`, stopped with `CallTimedOut` after `seconds`.

    A SIGALRM timer stops it, so only the main thread of a POSIX process has a
    limit; elsewhere it runs unlimited. The alarm repeats in case the code
    catches the first one. A Ctrl-C meanwhile is raised as KeyboardInterrupt,
    even though the submission's session answers any exception it meets.
    """
    if not hasattr(signal, "setitimer") or current_thread() is not main_thread():
        return work()
    fired = interrupted = False

    def on_alarm(signum: int, frame: object) -> None:
        nonlocal fired
        fired = True
        raise CallTimedOut(f"Your code did not finish within {seconds:g} seconds.")

    def on_interrupt(signum: int, frame: object) -> None:
        nonlocal interrupted
        interrupted = True
        raise KeyboardInterrupt

    previous_alarm = signal.signal(signal.SIGALRM, on_alarm)
    previous_interrupt = signal.signal(signal.SIGINT, on_interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.5)
    try:
        answer = work()
    except CallTimedOut:
        fired = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_alarm)
        signal.signal(signal.SIGINT, previous_interrupt)
    if interrupted:
        raise KeyboardInterrupt
    if fired:
        raise CallTimedOut(f"Your code did not finish within {seconds:g} seconds.")
    return answer
