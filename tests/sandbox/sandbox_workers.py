"""Workers loaded with hostile source through the real sandbox, for the threat tests."""

from __future__ import annotations

from chunklab.contract import CodeCell
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote
from chunklab.suite_run.submission_proxy import SubmissionProxy


class Workers:
    """Workers of one zygote, each running one source text; all ended by `close`."""

    def __init__(self, zygote: Zygote, limits: Limits) -> None:
        self.zygote, self.limits = zygote, limits
        self.backends: list[SandboxBackend] = []

    def backend(self, source: str) -> SandboxBackend:
        backend = SandboxBackend(self.zygote, (CodeCell(0, "submission.py", source),), self.limits)
        self.backends.append(backend)
        backend.load()
        return backend

    def proxy(self, source: str) -> SubmissionProxy:
        return SubmissionProxy(self.backend(source))

    def next_proxy(self, source: str) -> SubmissionProxy:
        """A worker started once every earlier one has ended."""
        self.close()
        return self.proxy(source)

    def close(self) -> None:
        for backend in self.backends:
            backend.close()
