"""A long answer that is right crosses from the worker as a keyed digest; any other comes whole.

The digest is a shortcut, never a verdict of its own: a right digest is given
back as the expected value itself, and every other answer (wrong, of another
type, or with a made-up or replayed digest) is the submission's real answer,
judged as a plain call's would be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from chunklab.contract import (
    MOST_PLAIN_DEPTH,
    CallTimedOut,
    answer_bytes,
    is_plain,
)
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker import WorkerProcess
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run import submission_proxy
from chunklab.suite_run.submission_proxy import NotPlainData, SubmissionProxy
from tests.sandbox.sandbox_workers import Workers

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
    while frame is not None and "answer_digest" not in frame.f_globals:
        frame = frame.f_back
    if frame is None:
        return False
    names = frame.f_globals
    real, made = names["answer_digest"], []
    def answer_digest(key, answer):
        made.append(real(key, answer))
        return made[0]
    names["answer_digest"] = answer_digest
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


# What a student could work out at home without the call's key: the digest of the right
# answer's JSON. The worker is made to answer with digests built from it in two ways.
PRECOMPUTER = """
import hashlib, marshal, sys

KNOWN = None
RIGHT = None

def chunk(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def learn(text, size, overlap):
    global KNOWN, RIGHT
    RIGHT = chunk(text, size, overlap)
    KNOWN = hashlib.blake2b(json_of({"ok": RIGHT})).digest()
    return True

def json_of(value):
    import json
    return json.dumps(value).encode()

def forge(way):
    frame = sys._getframe()
    while frame is not None and "answer_digest" not in frame.f_globals:
        frame = frame.f_back
    # The right answer's size, so that the grader does make a digest to compare with.
    size = len(marshal.dumps(RIGHT, frame.f_globals["DIGEST_FORMAT"]))
    def answer_digest(key, answer):
        if way == "keyed":
            return hashlib.blake2b(KNOWN, key=bytes.fromhex(key)).hexdigest(), size
        return hashlib.blake2b(bytes.fromhex(key) + KNOWN).hexdigest(), size
    frame.f_globals["answer_digest"] = answer_digest
    return True

def nothing(text, size, overlap):
    return []
"""


@pytest.mark.parametrize("way", ["keyed", "prefixed"])
def test_a_digest_made_from_what_is_known_before_the_call_never_passes(sandboxed, way):
    submission = sandboxed(PRECOMPUTER)
    right = local_chunks(TEXT, 10, 2)
    assert submission.learn(TEXT, 10, 2) is True
    assert submission.forge(way) is True
    value = submission.nothing.expecting(right)(TEXT, 10, 2)
    assert value == []


# Spends 0.4 s (sleeping counts as the call's own time) in the call asked by digest and
# 0.4 s more in the request for its answer, after a wrong digest.
SPLITTER = """
import sys, time

def chunk(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def split():
    frame = sys._getframe()
    while frame is not None and type(frame.f_locals.get("self")).__name__ != "Session":
        frame = frame.f_back
    session = type(frame.f_locals["self"])
    real = session.call
    def call(self, request):
        if request.get("op") == "kept" or "digest" in request:
            end = time.process_time() + 0.25
            while time.process_time() < end:
                pass
        answer = real(self, request)
        return {"digest": "0" * 128} if "digest" in answer else answer
    session.call = call
    return True
"""


def test_the_request_for_the_answer_gets_only_what_is_left_of_the_call(sandboxed):
    submission = sandboxed(SPLITTER)
    assert submission.split() is True
    right = local_chunks(TEXT, 10, 2)
    # Each part alone (0.25 s of CPU) is within the call's 0.4 s; both together are not.
    submission.begin_test(0.4)
    with pytest.raises(CallTimedOut) as timed_out:
        submission.chunk.expecting(right)(TEXT, 10, 2)
    # Named as the call itself, with its input.
    assert str(timed_out.value).startswith("Input: chunk('retrieval augmented")
    submission.begin_test(1.0)
    assert submission.chunk.expecting(right)(TEXT, 10, 2) == right


# Asked by digest, the call hands its work (0.9 s of CPU) to a child process on the same
# CPU, yields to it for 0.45 s and answers a decoy; the request for the answer then waits
# for the child. The main thread's clock less its waits sees almost none of the first
# part, the CPU the worker's processes used sees all of it.
HANDED_OFF = """
import json, os, select, sys, time

def windows(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def chunk(text, size, overlap):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    readable, writable = os.pipe()
    if os.fork() == 0:
        burn(0.9)
        os.write(writable, json.dumps(windows(text, size, overlap)).encode())
        os._exit(0)
    os.close(writable)
    started = time.monotonic()
    while time.monotonic() - started < 0.45:
        os.sched_yield()
    frame = sys._getframe()
    while frame is not None and type(frame.f_locals.get("self")).__name__ != "Session":
        frame = frame.f_back
    session = frame.f_locals["self"]
    real = session.call
    def call(request):
        if request.get("op") != "kept":
            return real(request)
        session.call = real
        parts = []
        while chunk := os.read(readable, 1 << 20):
            parts.append(chunk)
        return {"ok": json.loads(b"".join(parts))}
    session.call = call
    return ["decoy"]
"""


def test_the_time_carried_to_the_request_for_the_answer_counts_work_handed_off(sandboxed):
    submission = sandboxed(HANDED_OFF)
    submission.begin_test(0.6)
    with pytest.raises(CallTimedOut):
        submission.chunk.expecting(local_chunks(TEXT, 10, 2))(TEXT, 10, 2)


def count_digests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the answers the grader makes a keyed digest of, from now on."""
    sizes: list[int] = []
    real = submission_proxy.digest_of_bytes

    def counted(key: str, data: bytes) -> str:
        sizes.append(len(data))
        return real(key, data)

    monkeypatch.setattr(submission_proxy, "digest_of_bytes", counted)
    return sizes


def test_the_expected_answer_of_the_answers_size_is_digested_once(sandboxed, monkeypatch):
    submission = sandboxed(CHUNKER)
    right = local_chunks(TEXT, 10, 2)
    sizes = count_digests(monkeypatch)
    value, _ = submission.chunk.measuring(right)(TEXT, 10, 2)
    assert value is right
    assert sizes == [len(answer_bytes(right))]


def test_a_wrong_answer_of_another_size_than_the_expected_one_is_never_digested(
    sandboxed, monkeypatch, answer_lines
):
    submission = sandboxed(CHUNKER)
    sizes = count_digests(monkeypatch)
    answer_lines.clear()
    value, _ = submission.chunk.measuring(local_chunks(TEXT, 12, 2))(TEXT, 10, 2)
    assert value == local_chunks(TEXT, 10, 2)
    assert sizes == []
    assert len(answer_lines) == 2  # the digest, then the answer itself


# Makes the worker give a size its answer's bytes do not have, with the right digest.
SIZE_LIAR = """
import sys

def chunk(text, size, overlap):
    return [text[i:i + size] for i in range(0, len(text), size - overlap)]

def lie():
    frame = sys._getframe()
    while frame is not None and "answer_digest" not in frame.f_globals:
        frame = frame.f_back
    names = frame.f_globals
    real = names["answer_digest"]
    names["answer_digest"] = lambda key, answer: (real(key, answer)[0], 3)
    return True
"""


def test_a_size_that_lies_only_makes_a_right_answer_cross_whole(sandboxed, answer_lines):
    submission = sandboxed(SIZE_LIAR)
    assert submission.lie() is True
    right = local_chunks(TEXT, 10, 2)
    answer_lines.clear()
    value, _ = submission.chunk.measuring(right)(TEXT, 10, 2)
    assert value == right and value is not right
    assert len(answer_lines) == 2


LOOPER = """
def chunk(text, size, overlap):
    if size < 0:
        while True:
            pass
    return [text]
"""


def test_a_call_stopped_at_a_limit_the_test_lowered_is_not_a_spinning_submission(sandboxed):
    submission = sandboxed(LOOPER)
    backend = submission._backend
    backend.begin_test()
    with pytest.raises(CallTimedOut):
        submission.chunk.measuring([], most_seconds=0.3)("abc", -1, 0)
    # The worker was ended and the next call starts a fresh one; the limits of the later
    # calls are what they would have been.
    assert backend.spinning is False and backend.timed_out_in_test is False
    assert 0.25 <= backend.spent < 1.0
    assert submission.chunk("abc", 2, 0) == ["abc"]
    # Only the next call is capped.
    assert backend.next_cap is None


# Answers a made-up digest at once and does the call's work only when its kept answer is
# asked for: that work is still the call's, in its time and within its limit.
DEFERRER = """
import sys, time

def chunk(text, size, overlap):
    started = time.process_time()
    while time.process_time() - started < float(overlap):
        pass
    return [text]

def _defer():
    frame = sys._getframe(1)
    while frame is not None and not hasattr(frame.f_locals.get("self"), "kept"):
        frame = frame.f_back
    session_type = type(frame.f_locals["self"])
    real, waiting = session_type.call, []

    def call(self, request):
        if "digest" in request:
            self.kept = None
            waiting.append({k: v for k, v in request.items() if k != "digest"})
            return {"digest": "0" * 128}
        if request.get("op") == "kept" and waiting:
            return real(self, waiting.pop())
        return real(self, request)

    session_type.call = call

_defer()
"""


def test_work_put_off_until_the_kept_answer_is_asked_for_is_timed_as_the_calls(sandboxed):
    submission = sandboxed(DEFERRER)
    value, seconds = submission.chunk.measuring(["other"])("abc", 1, "0.3")
    assert value == ["abc"]
    assert seconds is not None and seconds >= 0.3


def test_work_put_off_until_the_kept_answer_is_asked_for_meets_the_calls_lowered_limit(
    sandboxed,
):
    submission = sandboxed(DEFERRER)
    submission._backend.begin_test()
    with pytest.raises(CallTimedOut):
        submission.chunk.measuring(["other"], most_seconds=0.3)("abc", 1, "3")
    assert submission._backend.spinning is False


def nested(depth: int) -> list:
    """A list holding a list ... `depth` levels below the outermost one."""
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


class Text(str):
    pass


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ([{"text": "a", "char_start": 0, "metadata": {"k": [1, 2.5, None, True]}}], True),
        ("a", True),
        (nested(MOST_PLAIN_DEPTH - 1), True),
        (nested(MOST_PLAIN_DEPTH), False),
        ([("a",)], False),
        ([b"a"], False),
        ([Text("a")], False),
        ({"a": float("nan")}, False),
        ([1, float("inf")], False),
        ({1: "a"}, False),
        ([{"a": 1}, {Text("b"): 2}], False),
        ({1.5, 2.5}, False),
    ],
)
def test_plain_data_is_told_by_exact_types_finite_floats_str_keys_and_depth(value, plain):
    # What the grader makes a digest of: only what a worker's JSON could carry exactly.
    assert is_plain(value) is plain


def test_a_value_holding_the_same_list_many_times_over_is_not_plain_data():
    shared: list = ["a"]
    for _ in range(40):
        shared = [shared, shared]  # 2**40 paths through 41 lists
    assert is_plain(shared) is False
