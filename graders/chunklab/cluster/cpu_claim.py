"""Each grading session on a machine gets a CPU of its own, as local grading processes do.

A grading session and the sandboxed worker it calls hand over to each other
thousands of times per submission; on one CPU each handover is cheap. Dask
worker processes on one machine do not know each other, so each claims a
CPU by locking a file named after it: the lock ends with the process, and a
session that finds every CPU taken runs where the system puts it.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

CLAIMS_DIR = Path(tempfile.gettempdir()) / "chunklab-cpu-claims"


def claim_a_cpu() -> int | None:
    """Pin the calling thread (and what it starts) to a free CPU; the lock's descriptor.

    Keep the descriptor open as long as the session lives; None when there is no
    CPU to claim (all taken, or no CPU affinity on this system).
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    for cpu in sorted(os.sched_getaffinity(0)):
        try:
            CLAIMS_DIR.mkdir(exist_ok=True)
            fd = os.open(CLAIMS_DIR / str(cpu), os.O_CREAT | os.O_RDONLY, 0o644)
        except OSError:
            return None  # no place to claim in (a read-only or another user's folder)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        os.sched_setaffinity(0, {cpu})  # 0: this thread only, on Linux
        return fd
    return None
