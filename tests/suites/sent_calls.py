"""A backend that tells the calls a check sends to the submission one by one from those
it sends ahead together (`SubmissionProxy.ahead`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunklab.suite_run.in_process import InProcessBackend
from chunklab.suite_run.submission_proxy import SubmissionProxy


class SendingBackend(InProcessBackend):
    """Counts the calls that reach the submission alone and those sent ahead together."""

    def __init__(self) -> None:
        super().__init__()
        self.alone = 0
        self.together = 0
        self.sending = False

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["op"] != "load" and not self.sending:
            self.alone += 1
        return super().request(message)

    def request_many(self, messages: list[dict[str, Any]]) -> list[dict[str, Any] | Exception]:
        self.sending, self.together = True, self.together + len(messages)
        try:
            return super().request_many(messages)
        finally:
            self.sending = False


def calls_sent(check: Callable[..., object], solution: Path, *extra: object) -> tuple[int, int]:
    """The calls `check(submission, *extra)` makes of `solution`: (alone, sent ahead)."""
    backend = SendingBackend()
    source = solution.read_text()
    backend.request({"op": "load", "cells": [{"index": 0, "label": "s.py", "source": source}]})
    check(SubmissionProxy(backend), *extra)
    return backend.alone, backend.together
