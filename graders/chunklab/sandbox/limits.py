"""The limits a worker runs under: each configurable, each with a sane default."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields

from chunklab.errors import UsageError
from chunklab.reading.read import DEFAULT_MAX_SUBMISSION_KB


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 2.0
    call_floor_seconds: float = 0.1
    submission_seconds: float = 60.0
    memory_mb: int = 512
    cpu_seconds: int = 30
    processes: int = 16
    output_kb: int = 64
    file_size_mb: int = 16
    max_submission_kb: int = DEFAULT_MAX_SUBMISSION_KB

    HELP = {
        "call_seconds": "own (CPU) time one call into a submission may take at most; "
        "the clock allows ten times as much, for code that waits",
        "call_floor_seconds": (
            "least own time a call gets, on top of what the reference solution needs; "
            "as large as --call-seconds: every call gets --call-seconds"
        ),
        "submission_seconds": "own (CPU) time of all calls into one submission; "
        "the clock allows three times as much",
        "memory_mb": "memory of a submission, all its processes together where a "
        "memory cgroup can be made, else of each process",
        "cpu_seconds": "CPU time of a worker",
        "processes": "processes a submission may run at once",
        "output_kb": "printed output kept per worker; the rest is cut",
        "file_size_mb": "largest file, and all files together, a submission may write",
        "max_submission_kb": "largest submission code read (a notebook's outputs not counted)",
    }

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not value > 0:
                raise UsageError(f"the limit {field.name} must be above 0, not {value!r}")

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("limits for each submission")
        for field in fields(cls):
            flag = "--" + field.name.replace("_", "-")
            group.add_argument(
                flag,
                type=type(field.default),
                default=field.default,
                help=f"{cls.HELP[field.name]} (default: {field.default})",
            )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Limits:
        return cls(**{field.name: getattr(args, field.name) for field in fields(cls)})
