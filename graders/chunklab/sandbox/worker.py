"""One worker process, seen from the grader: send a request, wait for its answer, end it."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunklab.running.submission_proxy import CallTimedOut, WorkerCrashed
from chunklab.sandbox.call_watch import CallLimit, CallWatch, ProcFiles, Verdict

# An answer larger than this is not a list of chunks for an exercise text.
MAX_ANSWER_BYTES = 32 * 1024 * 1024


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
    ) -> None:
        self.pid = pid
        self.requests, self.answers = requests, answers
        self.process_group = process_group
        self.work_dir = work_dir
        self.pidfd = open_pidfd(pid)
        self.output = OutputCollector(output, output_limit)
        self.output.start()
        self.buffer = b""
        self.alive = True
        # Made once: a call waits on these twice, and a class makes thousands of calls.
        self.writable = select.poll()
        self.writable.register(requests, select.POLLOUT)
        self.readable = select.poll()
        self.readable.register(answers, select.POLLIN)
        self.proc_files: ProcFiles | None = None
        self.watch: CallWatch | None = None

    def watch_next(
        self, limit: CallLimit | Callable[[], CallLimit], *, from_start: bool = False
    ) -> None:
        """The next call's own limits, watched while its request and answer are awaited."""
        if self.proc_files is None:
            self.proc_files = ProcFiles(self.pid)
        self.watch = CallWatch(self.proc_files, limit, from_start=from_start)

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request; its answer, or `CallTimedOut` / `WorkerCrashed`."""
        self.send(message, timeout)
        return self.answer(timeout)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        self._write(json.dumps(message).encode() + b"\n", deadline, timeout)

    def answer(self, timeout: float) -> dict[str, Any]:
        """The next answer, if it comes within `timeout` seconds from now."""
        deadline = time.monotonic() + timeout
        return json.loads(self._read_line(deadline, timeout))

    def _write(self, data: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(data)
        while view:
            self._wait(self.writable, deadline, timeout)
            try:
                written = os.write(self.requests, view[:65536])
            except (BrokenPipeError, OSError):
                self.kill()
                raise WorkerCrashed(self._ended_message()) from None
            view = view[written:]

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        while b"\n" not in self.buffer:
            self._wait(self.readable, deadline, timeout)
            chunk = os.read(self.answers, 1 << 20)
            if not chunk:
                self.kill()
                raise WorkerCrashed(self._ended_message())
            self.buffer += chunk
            if len(self.buffer) > MAX_ANSWER_BYTES:
                self.kill()
                raise WorkerCrashed(
                    f"Your code returned more than {MAX_ANSWER_BYTES // 2**20} MB of data."
                )
        line, _, self.buffer = self.buffer.partition(b"\n")
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
                    raise CallTimedOut(str(verdict)) from None

    def _ended_message(self) -> str:
        return (
            "Your code ended the process running it (it called exit, crashed, "
            "or went over a memory or CPU limit)."
        )

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
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.pidfd is not None:
            os.close(self.pidfd)
        if self.proc_files is not None:
            self.proc_files.close()
        self.output.join(timeout=2)
        if self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)


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
