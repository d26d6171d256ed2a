"""Standard output when its reader has gone away (`chunklab ... | head`)."""

from __future__ import annotations

import os
from typing import TextIO


def silence(stream: TextIO) -> None:
    """Point a closed pipe's file descriptor at /dev/null, so exiting flushes nothing into it."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass
