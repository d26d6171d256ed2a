"""One worker process, seen from the grader: send a request, wait for its answer, end it."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunklab.contract import (
    CallTimedOut,
    CallWaited,
    MemoryRunaway,
    ProtocolBroken,
    WorkerCrashed,
)
from chunklab.sandbox.answer_budget import (
    MAX_ANSWER_BYTES,
    TOO_LARGE,
    AnswerBudget,
    AnswerRefused,
    decode_answer,
)
from chunklab.sandbox.answer_shape import Expected, checked_answer, expected_of
from chunklab.sandbox.call_watch import (
    CallLimit,
    CallWatch,
    MemoryVerdict,
    ProcFiles,
    Reading,
    Verdict,
    WaitVerdict,
    cpu_seconds,
    own_seconds,
)
from chunklab.sandbox.cgroups import WorkerGroup, pid_runs
from chunklab.sandbox.cpu_time import CpuUse
from chunklab.sandbox.work_folder import remove_folder

# What one read of the answers' pipe asks for: what a pipe holds (64 KiB, unless it was
# made larger). A larger size fills no more, and costs a fresh allocation of that size
# at every read, which outweighs a short answer's whole decoding.
READ_SIZE = 1 << 16
# What a stopped call raises, by why its watch stopped it.
STOPPED: dict[type[Verdict], type[CallTimedOut]] = {
    MemoryVerdict: MemoryRunaway,
    WaitVerdict: CallWaited,
}


class OutputCollector(threading.Thread):
    """Drains what the worker prints, keeping only the first `limit` bytes."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.limit = fd, limit
        self.kept = bytearray()
        self.total = 0

    def run(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(self.fd, 65536):
                self.total += len(chunk)
                if len(self.kept) < self.limit:
                    self.kept += chunk[: self.limit - len(self.kept)]
        os.close(self.fd)

    @property
    def was_cut(self) -> bool:
        return self.total > self.limit


class WorkerProcess:
    def __init__(
        self,
        *,
        pid: int,
        requests: int,
        answers: int,
        output: int,
        output_limit: int,
        process_group: bool,
        work_dir: Path | None,
        groups: tuple[WorkerGroup, ...] = (),
        on_end: Callable[[int], None] | None = None,
    ) -> None:
        self.pid = pid
        self.groups = groups
        self.on_end = on_end
        self.requests, self.answers = requests, answers
        self.process_group = process_group
        self.work_dir = work_dir
        self.pidfd = open_pidfd(pid)
        # Drained from `start_output` on: a spare worker, made ahead and printing nothing,
        # keeps no thread running in the grading process.
        self.output = OutputCollector(output, output_limit)
        self.buffer = bytearray()
        self.scanned = 0  # how much of the buffer holds no line end
        self.budget = AnswerBudget()
        # What each request still unanswered asked for, so each answer is checked against it.
        self.expected: deque[Expected] = deque()
        self.alive = True
        # Made once: a call waits on these twice, and a class makes thousands of calls.
        self.writable = select.poll()
        self.writable.register(requests, select.POLLOUT)
        self.readable = select.poll()
        self.readable.register(answers, select.POLLIN)
        self.proc_files: ProcFiles | None = None
        self.watch: CallWatch | None = None

    def start_output(self) -> None:
        """Start collecting what the worker prints: it is about to run a submission."""
        if self.output.ident is None:
            self.output.start()

    def watch_next(
        self, limit: CallLimit | Callable[[], CallLimit], *, from_start: bool = False
    ) -> None:
        """The next call's own limits, watched while its request and answer are awaited."""
        if self.proc_files is None:
            self.proc_files = ProcFiles(self.pid, self.groups)
        self.watch = CallWatch(self.proc_files, limit, from_start=from_start)

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request; its answer, or `CallTimedOut` / `WorkerCrashed`."""
        self.send(message, timeout)
        return self.answer(timeout)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        calls = message["calls"] if message.get("op") == "calls" else [message]
        self.expected.extend(map(expected_of, calls))
        self._write(json.dumps(message).encode() + b"\n", deadline, timeout)

    def answer(self, timeout: float) -> dict[str, Any]:
        """The next answer, if it comes within `timeout` seconds from now.

        Its size and nesting are checked before it is decoded; an answer over
        the budget ends the worker and fails the call (`WorkerCrashed`). Its
        shape is checked before it is used: one that does not fit its request
        ends the worker too (`ProtocolBroken`).
        """
        deadline = time.monotonic() + timeout
        line = self._read_line(deadline, timeout)
        try:
            self.budget.charge(line)
            answer = decode_answer(line)
        except AnswerRefused as refused:
            self.kill()
            raise WorkerCrashed(str(refused)) from None
        except ValueError:
            self.kill()
            raise WorkerCrashed("The process running your code sent a garbled answer.") from None
        try:
            # An answer to no request at all fits nothing.
            return checked_answer(
                answer, self.expected.popleft() if self.expected else Expected("")
            )
        except ProtocolBroken:
            self.kill()
            raise

    def new_test(self) -> None:
        """A new test starts: the answers of the one before are no longer held."""
        self.budget.new_test()

    def _write(self, data: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(data)
        while view:
            self._wait(self.writable, deadline, timeout)
            try:
                written = os.write(self.requests, view[:65536])
            except (BrokenPipeError, OSError):
                message = self._ended_message()  # read before ending the worker's group
                self.kill()
                raise WorkerCrashed(message) from None
            view = view[written:]

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        while (end := self.buffer.find(b"\n", self.scanned)) < 0:
            self.scanned = len(self.buffer)
            if len(self.buffer) > MAX_ANSWER_BYTES:
                self.kill()
                raise WorkerCrashed(TOO_LARGE)
            self._wait(self.readable, deadline, timeout)
            chunk = os.read(self.answers, READ_SIZE)
            if not chunk:
                message = self._ended_message()  # read before ending the worker's group
                self.kill()
                raise WorkerCrashed(message)
            self.buffer += chunk
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        return line

    def _wait(self, poller: select.poll, deadline: float, timeout: float) -> None:
        """Wait until `poller` is ready; a watched call is looked at now and then meanwhile."""
        while True:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                self.kill()
                raise CallTimedOut(f"Your code did not finish within {timeout:g} seconds.")
            watch = self.watch
            wait = remaining if watch is None else min(remaining, watch.next_look())
            if poller.poll(wait * 1000):
                return
            if watch is not None:
                try:
                    watch.look(time.monotonic(), deadline)
                except Verdict as verdict:
                    self.kill()
                    raise STOPPED.get(type(verdict), CallTimedOut)(str(verdict)) from None

    def _ended_message(self) -> str:
        if any(group.ran_out() for group in self.groups):
            return (
                "Your code went over the memory limit, which counts all the processes "
                "it started together."
            )
        return (
            "Your code ended the process running it (it called exit, crashed, "
            "or went over a memory or CPU limit)."
        )

    def own_mark(self) -> Reading:
        """What the worker has spent so far: `own_seconds_since` a mark gives its own time."""
        if self.proc_files is None or not self.alive:
            return Reading(time.monotonic(), CpuUse(None, None))
        files = self.proc_files
        return Reading(time.monotonic(), files.cpu(), files.run_delay() or 0.0)

    def own_seconds_since(self, mark: Reading) -> float:
        """The worker's own time since `mark`, counted as a call's own time is; for a
        worker ended meanwhile, what its call's watch counted last."""
        return self.spent_since(mark)[0]

    def spent_since(self, mark: Reading) -> tuple[float, float]:
        """`own_seconds_since`, and the time by the clock since `mark` less the main thread's
        waits for a CPU, from one look at the worker (a look reads three of its counters)."""
        now, watch = self.own_mark(), self.watch
        own = watch.spent if not self.alive and watch is not None else own_seconds(mark, now)
        return own, now.now - mark.now - max(0.0, now.waited - mark.waited)

    def cpu_seconds_since(self, mark: Reading) -> float | None:
        """The CPU every thread and process of the worker used since `mark`, where known."""
        return cpu_seconds(mark, self.own_mark())

    def has_ended(self) -> bool:
        """Whether the process has ended (without waiting): a spare worker may have died."""
        if not self.alive:
            return True  # ended by the grader
        if self.pidfd is None:
            return not pid_runs(self.pid)
        return bool(select.select([self.pidfd], [], [], 0)[0])

    def printed(self) -> str:
        return self.output.kept.decode(errors="replace")

    def kill(self) -> None:
        """End the worker and, with it, every process it started."""
        if not self.alive:
            return
        self.alive = False
        with contextlib.suppress(OSError):
            if self.process_group:
                os.killpg(self.pid, signal.SIGKILL)
        send_kill(self.pid, self.pidfd)
        for group in self.groups:
            group.end()  # also what left the process group
        if self.on_end is not None:
            self.on_end(self.pid)
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.pidfd is not None:
            os.close(self.pidfd)
        if self.proc_files is not None:
            self.proc_files.close()
        if self.output.ident is None:
            with contextlib.suppress(OSError):
                os.close(self.output.fd)
        else:
            self.output.join(timeout=2)
        if self.work_dir is not None:
            remove_folder(self.work_dir)


def open_pidfd(pid: int) -> int | None:
    """A handle on the process that cannot point at another one once it has ended."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def send_kill(pid: int, pidfd: int | None) -> None:
    with contextlib.suppress(OSError):
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
