"""When a grading process collects cyclic garbage: mostly between its pytest sessions."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

# A pytest session makes objects by the hundred thousand and most of them live until it
# ends: with the default thresholds the collector would keep walking them (and pytest's
# own modules as they are imported).
SESSION_THRESHOLDS = (20_000, 50, 100)


def collect_garbage_per_session() -> None:
    """In a grading process, the cyclic garbage collector mostly runs between sessions.

    What is in memory before grading (the modules) is frozen out of its sight,
    and each session's leftovers are collected when it ends, so memory stays
    flat however many sessions a process runs.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SESSION_THRESHOLDS)


@contextlib.contextmanager
def collecting_per_session() -> Iterator[None]:
    """The same thresholds while this process grades itself; its own come back afterwards.

    Nothing is frozen: the process is the caller's, and lives on.
    """
    before = gc.get_threshold()
    gc.set_threshold(*SESSION_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
