"""The zygote starts while the grading process works on: its code is handed over at once."""

from __future__ import annotations

import fcntl
import os
import threading

import pytest

from chunklab.sandbox.zygote import write_without_waiting


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="a pipe's size is Linux's")
def test_the_zygote_code_goes_into_its_pipe_without_waiting_for_a_reader():
    read_end, write_end = os.pipe()
    data = b"x" * 200_000  # past a pipe's usual 64 KB, as the zygote's code is
    writer = threading.Thread(
        target=write_without_waiting, args=(os.fdopen(write_end, "wb"), data), daemon=True
    )
    writer.start()
    writer.join(10)
    finished_unread = not writer.is_alive()
    with os.fdopen(read_end, "rb") as reader:
        assert reader.read() == data
    assert finished_unread
