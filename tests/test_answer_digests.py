"""A long answer that is right crosses from the worker as a keyed digest; any other comes whole.

The digest is a shortcut, never a verdict of its own: a right digest is given
back as the expected value itself, and every other answer (wrong, of another
type, or with a made-up or replayed digest) is the submission's real answer,
judged as a plain call's would be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sandbox_workers import Workers

from chunklab.running.submission_proxy import NotPlainData, SubmissionProxy
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker import WorkerProcess
from chunklab.sandbox.zygote import Zygote, ZygoteSettings

LIMITS = Limits(call_seconds=5.0, call_floor_seconds=5.0, submission_seconds=30.0, memory_mb=300)

CHUNKER = """
def chunk(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def as_tuple(text, size, overlap):
    return tuple(chunk(text, size, overlap))

def Pieces(size):
    class Cutter:
        def cut(self, text):
            return chunk(text, size, 0)
    return Cutter()
"""

# Finds the worker's digest function up the call stack and makes it give back the first
# digest it made:
# a right answer's digest, replayed for the wrong answers that follow.
REPLAYER = """
import sys

def chunk(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def wrong(text, size, overlap):
    return chunk(text, size, overlap)[:-1]

def replay():
    frame = sys._getframe()
    while frame is not None and "keyed_digest" not in frame.f_globals:
        frame = frame.f_back
    if frame is None:
        return False
    names = frame.f_globals
    real, made = names["keyed_digest"], []
    def keyed_digest(key, digest):
        made.append(real(key, digest))
        return made[0]
    names["keyed_digest"] = keyed_digest
    return True
"""

TEXT = "retrieval augmented generation cuts documents into chunks. " * 2000


def local_chunks(text: str, size: int, overlap: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size - overlap)]


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    with Zygote(ZygoteSettings(LIMITS)) as started:
        yield started


@pytest.fixture
def sandboxed(zygote: Zygote) -> Iterator[Callable[[str], SubmissionProxy]]:
    workers = Workers(zygote, LIMITS)
    yield workers.proxy
    workers.close()


@pytest.fixture
def answer_lines(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every answer line the grader reads from a worker."""
    lines: list[bytes] = []
    read_line = WorkerProcess._read_line

    def recorded(self: WorkerProcess, deadline: float, timeout: float) -> bytes:
        line = read_line(self, deadline, timeout)
        lines.append(line)
        return line

    monkeypatch.setattr(WorkerProcess, "_read_line", recorded)
    return lines


def test_a_right_answer_is_the_expected_value_and_only_its_digest_crosses(sandboxed, answer_lines):
    submission = sandboxed(CHUNKER)
    expected = local_chunks(TEXT, 10, 2)
    answer_lines.clear()
    value = submission.chunk.expecting(expected)(TEXT, 10, 2)
    assert value is expected
    assert len(answer_lines) == 1
    assert len(answer_lines[0]) < 200  # the answer itself is over 200 kB of JSON


def test_a_right_answer_of_a_method_is_the_expected_value(sandboxed):
    pieces = sandboxed(CHUNKER).Pieces(7)
    expected = local_chunks(TEXT, 7, 0)
    assert pieces.cut.expecting(expected)(TEXT) is expected


def test_a_wrong_answer_comes_back_whole(sandboxed):
    submission = sandboxed(CHUNKER)
    expected = local_chunks(TEXT, 10, 2)
    value = submission.chunk.expecting(expected)(TEXT, 10, 3)
    assert value == local_chunks(TEXT, 10, 3)
    assert value == submission.chunk(TEXT, 10, 3)


def test_an_answer_of_another_type_never_passes_for_the_expected_one(sandboxed):
    submission = sandboxed(CHUNKER)
    expected = local_chunks(TEXT[:50], 10, 2)
    value = submission.as_tuple.expecting(expected)(TEXT[:50], 10, 2)
    assert isinstance(value, NotPlainData)
    assert value.type_name == "tuple"


def test_an_exception_is_raised_as_from_a_plain_call(sandboxed):
    submission = sandboxed(CHUNKER)
    with pytest.raises(ValueError, match="must not be zero"):
        submission.chunk.expecting([])("abc", 2, 2)


def test_a_replayed_digest_never_passes_for_a_right_one(sandboxed):
    submission = sandboxed(REPLAYER)
    assert submission.replay() is True
    right = local_chunks(TEXT, 10, 2)
    assert submission.chunk.expecting(right)(TEXT, 10, 2) is right
    # The worker now answers every digest request with the digest made for that right answer.
    value = submission.wrong.expecting(right)(TEXT, 10, 2)
    assert value is not right
    assert value == right[:-1]
