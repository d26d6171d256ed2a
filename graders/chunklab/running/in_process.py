"""A backend that runs the submission in this process: for a student's self-check only.

Self-check runs a student's own code on their own machine, so it needs no
isolation; answers still go through JSON so tests see exactly what they
would see when graded.
"""

from __future__ import annotations

import json
from typing import Any

from chunklab.sandbox.worker_main import Session


class InProcessBackend:
    def __init__(self, namespace: dict[str, Any] | None = None) -> None:
        self.session = Session()
        if namespace is not None:
            self.session.namespace.update(namespace)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message = json.loads(json.dumps(message))
        if message["op"] == "load":
            answer = self.session.load(message["cells"])
        else:
            answer = self.session.call(message)
        return json.loads(json.dumps(answer))
