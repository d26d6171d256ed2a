"""A submission read where it was found, on its way to a worker of a cluster.

Workers of a cluster share no file system with the instructor's machine, so
what they grade travels with the task. It travels read: the sending side reads
each submission with the reader a local run uses (`read_found`: the same
folder handle, the same limits on entries, depth and size, the same refusal of
links), and sends the code it read or the error that stopped it. So a report
on a cluster says what it says locally, and nothing larger than the size limit
ever travels, whatever the folder held.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunklab.errors import SubmissionError
from chunklab.reading.read import SubmissionPath, read_found
from chunklab.reading.source import SubmissionSource


@dataclass(frozen=True)
class Parcel:
    """One submission on its way to a worker: read, or the reason it could not be."""

    index: int
    item: SubmissionPath
    # The code read, or why it could not be (a link, a FIFO, too many files): then
    # it is reported, never graded.
    read: SubmissionSource | SubmissionError


def pack(index: int, item: SubmissionPath, lesson_id: str | None, limit: int) -> Parcel:
    """Read a submission where it was found, as a local run reads it (`limit` bytes of code)."""
    try:
        return Parcel(index, item, read_found(item, lesson_id, limit))
    except SubmissionError as error:
        return Parcel(index, item, error)
