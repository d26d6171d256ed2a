"""The long-document rule: the kit's fixed long texts, named in a request rather than sent,
and the check that the work grows in step with the text, judged by a ratio of CPU times
that no load changes."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chunklab import kit_texts
from chunklab.contract import CallTimedOut, CodeCell, MemoryRunaway, SubmissionTimeSpent
from chunklab.kit import cache_dir, find_kit, load_reference
from chunklab.kit_texts import LONG_LENGTH, SHORT_LENGTH, kit_text
from chunklab.lessons import LESSONS
from chunklab.sandbox.backend import SandboxBackend
from chunklab.sandbox.fitted_limits import ReferenceTimes
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.worker_main import Session
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suite_run.submission_proxy import (
    SubmissionProxy,
    call_message,
    describe_call,
)
from chunklab.suites import long_texts
from chunklab.suites.checks import RuleBroken
from chunklab.suites.long_texts import (
    MOST_GROWTH,
    SETTLED_GROWTH,
    TIMINGS,
    expect_long_document,
    long_text,
)
from tests.suites.test_window_lessons import grader_tests

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

KIT = find_kit()
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"


# --- The fixed texts ---------------------------------------------------------------------


def test_a_fixed_text_is_named_in_the_request_never_sent():
    message = call_message("call", "chunk", (long_text(), 10, 2), {})
    assert message["args"] == [None, 10, 2] and message["texts"] == [[0, f"long-{LONG_LENGTH}"]]
    assert len(json.dumps(message)) < 200
    # Feedback still shows the text itself.
    assert describe_call(message).startswith(f"chunk({long_text()[:20]!r}"[:-1])


def test_a_documents_body_that_is_a_fixed_text_is_named_too():
    document = {"id": "long", "body": long_text(), "title": "t"}
    message = call_message("call", "process_document", (document,), {})
    assert message["args"] == [{"id": "long", "body": None, "title": "t"}]
    assert message["texts"] == [[0, "body", f"long-{LONG_LENGTH}"]]
    assert len(json.dumps(message)) < 200
    assert describe_call(message).startswith("process_document({'id': 'long', 'body': ")


def test_a_worker_puts_a_named_body_in_its_document():
    session = Session(texts={"long-20000": "abc def"})
    session.namespace["size"] = lambda doc: [len(doc["body"]), doc["id"]]
    request = {
        "op": "call",
        "name": "size",
        "args": [{"id": "d", "body": None}],
        "texts": [[0, "body", "long-20000"]],
    }
    assert session.call(request) == {"ok": [7, "d"]}


def test_a_worker_puts_the_named_text_in_its_place():
    session = Session(texts={"long-20000": "abc def"})
    session.namespace["count"] = lambda text, n: [len(text), n]
    request = {"op": "call", "name": "count", "args": [None, 3], "texts": [[0, "long-20000"]]}
    assert session.call(request) == {"ok": [7, 3]}


def test_a_sandboxed_worker_holds_the_kits_texts_from_its_start():
    with Zygote(ZygoteSettings(Limits())) as zygote:
        source = "def chunk(text, size, overlap):\n    return [str(len(text)), text[-5:]]\n"
        backend = SandboxBackend(zygote, (CodeCell(0, "s.py", source),), Limits())
        backend.load()
        try:
            proxy = SubmissionProxy(backend)
            proxy.begin_test()
            assert proxy.chunk(long_text(), 1, 0) == [str(LONG_LENGTH), long_text()[-5:]]
            assert proxy.chunk(long_text(SHORT_LENGTH), 1, 0)[0] == str(SHORT_LENGTH)
        finally:
            backend.close()


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kit_texts.text_file.cache_clear()
    kit_texts.kit_text.cache_clear()
    yield tmp_path / "chunklab" / "texts"
    kit_texts.text_file.cache_clear()
    kit_texts.kit_text.cache_clear()


@pytest.mark.parametrize("relative", ["cache", "./cache", "."])
def test_a_relative_xdg_cache_home_is_ignored(
    relative: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The zygote reads the texts from a working folder of its own: a relative cache
    # folder would name another place there.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", relative)
    assert cache_dir() == Path.home() / ".cache" / "chunklab"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "chunklab"


def test_a_text_is_made_once_and_kept(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch):
    name = f"long-{SHORT_LENGTH}"
    path = kit_texts.text_file(name)
    assert path.parent == fresh_cache and kit_texts.digest_of(path.read_text()) == (
        kit_texts.DIGESTS[name]
    )
    kit_texts.text_file.cache_clear()
    monkeypatch.setattr(kit_texts, "make_text", lambda length: pytest.fail("made again"))
    assert kit_texts.text_file(name) == path


def test_a_damaged_kept_text_is_made_again(fresh_cache: Path):
    name = f"long-{SHORT_LENGTH}"
    path = kit_texts.text_file(name)
    path.write_text("edited", encoding="utf-8")
    kit_texts.text_file.cache_clear()
    assert kit_text(name) == kit_texts.make_text(SHORT_LENGTH)


def test_a_text_that_comes_out_otherwise_is_never_graded_with(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(kit_texts, "make_text", lambda length: "x" * length)
    with pytest.raises(kit_texts.KitTextDamaged, match="came out differently"):
        kit_texts.text_file(f"long-{SHORT_LENGTH}")


# --- The growth check, with CPU times given ---------------------------------------------


class Timed:
    """A submission's function whose CPU time on each text is given, call by call."""

    __name__ = "chunk"

    def __init__(self, seconds: dict[int, list[float]]) -> None:
        self.seconds = {length: iter(times) for length, times in seconds.items()}
        self.calls: list[int] = []
        # The own-time limit each call was given below the test's (None: not lowered).
        self.caps: list[float | None] = []

    def measuring(
        self, expected: Any, most_seconds: float | None = None
    ) -> Callable[..., tuple[Any, float]]:
        def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
            self.calls.append(len(text))
            self.caps.append(most_seconds)
            seconds = next(self.seconds[len(text)])
            if most_seconds is not None and seconds > most_seconds:
                raise CallTimedOut(f"Your code did not finish within {most_seconds:g} seconds.")
            return expected, seconds

        return call


def reference_chunk(text: str, size: int, overlap: int) -> list[str]:
    return [text[:size]]


def check(timed: Timed) -> None:
    expect_long_document(timed, lambda text: (text, 10, 2), reference_chunk)


def test_linear_work_many_times_slower_than_the_reference_passes_at_once():
    timed = Timed({LONG_LENGTH: [1.2], SHORT_LENGTH: [0.1]})
    check(timed)
    assert timed.calls == [SHORT_LENGTH, LONG_LENGTH]


def test_growth_near_the_limit_has_its_short_call_timed_once_more_and_passes():
    growth = (long_texts.RECHECKED_GROWTH + MOST_GROWTH) / 2
    timed = Timed({LONG_LENGTH: [growth * 0.01], SHORT_LENGTH: [0.01, 0.011]})
    check(timed)
    assert timed.calls == [SHORT_LENGTH, LONG_LENGTH, SHORT_LENGTH]


def test_a_slow_first_short_timing_does_not_hide_growth_past_the_limit():
    # The first short call took twice its time (a fresh worker's first call, say): the
    # growth looked within the limit; the short call timed again shows it is not.
    timed = Timed(
        {LONG_LENGTH: [0.4] * TIMINGS, SHORT_LENGTH: [0.02] + [0.01] * TIMINGS}
    )
    assert 0.4 / 0.02 <= MOST_GROWTH < 0.4 / 0.01
    too_slow_message(timed)
    assert timed.calls[:3] == [SHORT_LENGTH, LONG_LENGTH, SHORT_LENGTH]


def too_slow_message(timed: Timed) -> str:
    with pytest.raises(RuleBroken) as failed:
        check(timed)
    return str(failed.value)


def test_work_that_grows_with_the_square_fails_each_timing():
    # Growth of 50: past the limit, not so far past that one timing settles it.
    timed = Timed({LONG_LENGTH: [0.5] * TIMINGS, SHORT_LENGTH: [0.01] * TIMINGS})
    message = too_slow_message(timed)
    assert len(timed.calls) == 2 * TIMINGS
    assert message.startswith("Input: chunk('")
    assert message.endswith(
        f"and the same with the text's first {SHORT_LENGTH:,} characters\n"
        "Verdict: on the text ten times longer, your code took far more than a few times ten as "
        "long (its own CPU time), or a call did not finish in time: its work grows faster "
        "than the text, or never ends. Look for work done again at every chunk on the whole "
        "text or the rest of it: slicing or searching it anew, splitting it again, or "
        "building a new list from the old one; or for a loop that never ends on this text."
    )
    assert not any(char.isdigit() for char in message.split("\n")[-1])  # no figure varies


def test_growth_far_past_the_limit_is_timed_once_with_the_same_verdict():
    assert SETTLED_GROWTH >= 2.5 * MOST_GROWTH
    settled = Timed({LONG_LENGTH: [SETTLED_GROWTH * 0.0102], SHORT_LENGTH: [0.01]})
    timed_again = Timed({LONG_LENGTH: [0.5] * TIMINGS, SHORT_LENGTH: [0.01] * TIMINGS})
    assert too_slow_message(settled) == too_slow_message(timed_again)
    assert settled.calls == [SHORT_LENGTH, LONG_LENGTH]


class StoppedLong(Timed):
    """The long call stopped at its own time limit, as a busy machine may make it."""

    def __init__(self, short_seconds: float, why: CallTimedOut) -> None:
        super().__init__({SHORT_LENGTH: [short_seconds]})
        self.why = why

    def measuring(
        self, expected: Any, most_seconds: float | None = None
    ) -> Callable[..., tuple[Any, float]]:
        timed = super().measuring(expected)

        def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
            if len(text) == LONG_LENGTH:
                self.calls.append(len(text))
                raise self.why
            return timed(text, size, overlap)

        return call


def test_a_long_call_stopped_at_its_limit_is_judged_as_growth_when_the_short_one_shows_it():
    # Square growth that finished in time on an idle machine and was stopped on a busy one
    # gets the same verdict, word for word.
    finished = Timed({LONG_LENGTH: [0.5] * TIMINGS, SHORT_LENGTH: [0.01] * TIMINGS})
    stopped = StoppedLong(0.01, CallTimedOut("Your code did not finish within 2 seconds."))
    assert too_slow_message(stopped) == too_slow_message(finished)
    assert stopped.calls == [SHORT_LENGTH, LONG_LENGTH]


def test_a_long_call_stopped_after_a_slow_short_one_gets_the_same_verdict():
    # Square growth whose short call took long enough that the long call's own 2 s, not
    # the growth cap, stopped it: the outcome and feedback must not depend on which
    # limit a run's timings reached. A runaway in memory keeps its own verdict.
    slow_short = StoppedLong(0.2, CallTimedOut("Your code did not finish within 2 seconds."))
    fast_short = StoppedLong(0.01, CallTimedOut("Your code did not finish within 2 seconds."))
    assert too_slow_message(slow_short) == too_slow_message(fast_short)
    with pytest.raises(MemoryRunaway):
        check(StoppedLong(0.01, MemoryRunaway("Your code kept taking more memory")))
    with pytest.raises(SubmissionTimeSpent):
        check(StoppedLong(0.01, SubmissionTimeSpent("The time for your whole submission")))


def test_a_short_call_stopped_at_its_share_gets_the_same_verdict_as_a_stopped_long_one():
    # Square growth that takes long on the first tenth already: whether the short call or
    # the long one meets its limit in a run, the outcome and feedback are the same.
    # Linear code that slow would take over the whole limit on the long text anyway.
    assert SHORT_CAP == long_texts.LONG_TEXT_SECONDS / 4
    short_stopped = Timed({SHORT_LENGTH: [SHORT_CAP * 1.01]})
    long_stopped = StoppedLong(0.2, CallTimedOut("Your code did not finish within 2 seconds."))
    assert too_slow_message(short_stopped) == too_slow_message(long_stopped)
    assert short_stopped.calls == [SHORT_LENGTH]


SHORT_CAP = long_texts.SHORT_SHARE * long_texts.LONG_TEXT_SECONDS


def test_the_long_call_may_take_the_settled_growth_of_the_short_one_and_no_more():
    # Square growth is stopped there, and gets the verdict it gets when it finishes.
    assert long_texts.LEAST_CAP <= long_texts.LONG_TEXT_SECONDS / 4
    stopped = Timed({LONG_LENGTH: [1.9], SHORT_LENGTH: [0.01]})
    finished = Timed({LONG_LENGTH: [0.9], SHORT_LENGTH: [0.01]})
    assert too_slow_message(stopped) == too_slow_message(finished)
    assert stopped.caps == [SHORT_CAP, SETTLED_GROWTH * 0.01]
    assert stopped.calls == [SHORT_LENGTH, LONG_LENGTH]
    # Never below the least cap, whatever the short call took; linear work is not stopped.
    fast = Timed({LONG_LENGTH: [0.02], SHORT_LENGTH: [0.002]})
    check(fast)
    assert fast.caps == [SHORT_CAP, long_texts.LEAST_CAP]


def test_a_long_call_the_short_one_gives_room_keeps_the_tests_own_limit():
    timed = Timed({LONG_LENGTH: [1.2], SHORT_LENGTH: [0.1]})
    check(timed)
    assert timed.caps == [SHORT_CAP, SETTLED_GROWTH * 0.1]  # 7.5 s: the test's 2 s stands
    assert SETTLED_GROWTH * 0.1 > long_texts.LONG_TEXT_SECONDS


class OtherRightAnswer(Timed):
    """Gives a right answer that is not the reference's, and notes what it was expected to
    give."""

    def __init__(self) -> None:
        super().__init__({LONG_LENGTH: [0.1] * 9, SHORT_LENGTH: [0.01] * 9})
        self.expected: list[Any] = []

    def measuring(
        self, expected: Any, most_seconds: float | None = None
    ) -> Callable[..., tuple[Any, float]]:
        timed = super().measuring(expected, most_seconds)
        self.expected.append(expected)

        def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
            _, seconds = timed(text, size, overlap)
            return [text[:size] + " "], seconds

        return call


def test_an_answer_other_than_the_references_is_judged_anew_for_every_submission():
    # Its call's time includes sending it whole: were it known from an earlier submission,
    # a later one's calls would look faster than the same code's graded alone.
    judged: list[Any] = []

    def judge(expected: Any) -> Callable[[tuple, Any, Any], None]:
        def accept(args: tuple, answer: Any, given: Any) -> None:
            judged.append(answer)
            if answer != [args[0][:10] + " "]:
                raise RuleBroken("wrong")

        return accept

    first, second = OtherRightAnswer(), OtherRightAnswer()
    for timed in (first, second):
        expect_long_document(timed, lambda text: (text, 10, 2), reference_chunk, judge)
    assert len(judged) == 4  # each submission's two answers
    # Only the reference's answers are compared by digest, whoever came before.
    assert len(first.expected) == 2 and second.expected == first.expected


def test_what_crosses_from_a_submission_does_not_depend_on_those_graded_before_it(
    chunklab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # Two copies of a pipeline whose chunks follow the rules but are not the reference's,
    # graded one after the other in one process: each sends every long answer whole, in
    # the time of its call, as it does graded alone; the second finds nothing the first
    # left behind to make its calls look faster.
    asked: list[list[str]] = []
    start, request = SandboxBackend.__init__, SandboxBackend.request

    def started(backend: SandboxBackend, *args: Any, **kwargs: Any) -> None:
        start(backend, *args, **kwargs)
        asked.append([])

    def noted(backend: SandboxBackend, message: dict[str, Any]) -> dict[str, Any]:
        asked[-1].append("digest" if "digest" in message else message["op"])
        return request(backend, message)

    monkeypatch.setattr(SandboxBackend, "__init__", started)
    monkeypatch.setattr(SandboxBackend, "request", noted)
    alternative = find_kit().root / "solutions/alternatives/chunking_pipeline"
    source = (alternative / "keeps_the_whole_whitespace_run.py").read_text()
    for name in ("a_chunking_pipeline.py", "b_chunking_pipeline.py"):
        (tmp_path / name).write_text(source)
    result = chunklab("grade", "--jobs", "1", "--jsonl", tmp_path)
    assert result.exit_code == 0, result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert [report["score"] for report in reports] == [report["max_score"] for report in reports]
    assert len(asked) == 2
    for ops in asked:
        assert ops.count("digest") >= 4 and ops.count("kept") == ops.count("digest")


def test_growth_up_to_the_settled_limit_is_timed_again():
    # A linear solution's timing slowed threefold at the worst by the machine still passes.
    timed = Timed({LONG_LENGTH: [SETTLED_GROWTH * 0.01, 0.2], SHORT_LENGTH: [0.01, 0.012]})
    check(timed)
    assert timed.calls == [SHORT_LENGTH, LONG_LENGTH] * 2


def test_a_timing_slowed_by_the_machine_is_timed_again_and_the_least_counts():
    # The long text's first timing is three times what the code needs (a busy machine).
    timed = Timed({LONG_LENGTH: [3.0, 1.0], SHORT_LENGTH: [0.1, 0.12]})
    check(timed)
    assert timed.calls == [SHORT_LENGTH, LONG_LENGTH] * 2


class KeepsByText(Timed):
    """A function that keeps its answers by the text: a text given again is answered at once."""

    def __init__(self, seconds: dict[int, list[float]]) -> None:
        super().__init__(seconds)
        self.texts: list[str] = []

    def measuring(
        self, expected: Any, most_seconds: float | None = None
    ) -> Callable[..., tuple[Any, float]]:
        timed = super().measuring(expected, most_seconds)

        def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
            kept = text in self.texts
            self.texts.append(text)
            if kept:
                return expected, 0.0001
            return timed(text, size, overlap)

        return call


def test_code_that_keeps_its_answers_by_the_text_is_timed_again_on_texts_it_was_not_given():
    # The machine slowed the first long timing threefold: timed again, as linear code is.
    keeps = KeepsByText({LONG_LENGTH: [0.3, 0.1], SHORT_LENGTH: [0.01, 0.01]})
    check(keeps)
    assert keeps.calls == [SHORT_LENGTH, LONG_LENGTH] * 2
    assert len(set(keeps.texts)) == len(keeps.texts) == 4
    # The most timings a check makes (the short text once more, then two timings again)
    # each get a text of their own.
    slow_first = KeepsByText({LONG_LENGTH: [0.4] * 3, SHORT_LENGTH: [0.02, 0.01, 0.01, 0.01]})
    too_slow_message(slow_first)
    assert TIMINGS == 3 and len(set(slow_first.texts)) == len(slow_first.texts) == 7


def test_the_second_check_of_a_test_times_texts_the_first_never_gave():
    # The pipeline's chunk_text and then process_document, on one pipeline that keeps
    # what it worked out by the text: each check's timings are of texts of its own.
    keeps = KeepsByText({LONG_LENGTH: [0.3, 0.1] * 2, SHORT_LENGTH: [0.01] * 4})
    for check_number in (0, 1):
        expect_long_document(
            keeps, lambda text: (text, 10, 2), reference_chunk, check=check_number
        )
    assert keeps.calls == [SHORT_LENGTH, LONG_LENGTH] * 4
    assert len(set(keeps.texts)) == len(keeps.texts) == 8
    with pytest.raises(ValueError, match="at most 2 long-document checks"):
        expect_long_document(keeps, lambda text: (text, 10, 2), reference_chunk, check=2)


def test_a_long_call_timed_again_is_stopped_once_it_cannot_pass_and_the_next_one_still_counts():
    # Growth of 50 at the first timings (a busy machine, say): timed again, the long call
    # may take 25 times the least short timing, no more; stopped there, the worker it ran
    # in ends, and the next timing goes to what `again` gives.
    timed = Timed({LONG_LENGTH: [1.0, 0.8, 0.4], SHORT_LENGTH: [0.02, 0.024, 0.018]})
    agains: list[int] = []
    expect_long_document(
        timed,
        lambda text: (text, 10, 2),
        reference_chunk,
        again=lambda: agains.append(1) or timed,
    )
    short_share = long_texts.SHORT_SHARE * long_texts.LONG_TEXT_SECONDS
    assert timed.caps == [
        short_share,
        SETTLED_GROWTH * 0.02,
        short_share,
        MOST_GROWTH * 0.02,  # the least short timing so far
        short_share,
        MOST_GROWTH * 0.018,
    ]
    assert agains == [1]
    # Stopped at every timing again: the growth verdict, as when each had finished.
    quadratic = Timed({LONG_LENGTH: [0.5, 0.4, 0.4], SHORT_LENGTH: [0.01] * 3})
    assert too_slow_message(quadratic) == too_slow_message(
        Timed({LONG_LENGTH: [0.5] * 3, SHORT_LENGTH: [0.01] * 3})
    )


def test_an_answer_on_a_text_drawn_again_is_judged_against_that_texts_own_answer():
    answers: dict[int, list[str]] = {}

    class KeepsByLength(Timed):
        # Keeps its first answer for each length of text: right on the first texts only.
        def measuring(
            self, expected: Any, most_seconds: float | None = None
        ) -> Callable[..., tuple[Any, float]]:
            timed = super().measuring(expected, most_seconds)

            def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
                _, seconds = timed(text, size, overlap)
                return answers.setdefault(len(text), [text]), seconds

            return call

    keeps = KeepsByLength({LONG_LENGTH: [0.3, 0.1], SHORT_LENGTH: [0.01, 0.01]})
    with pytest.raises(RuleBroken, match="the answer is wrong"):
        expect_long_document(keeps, lambda text: (text, 10, 2), lambda text, s, o: [text])
    assert keeps.calls == [SHORT_LENGTH, LONG_LENGTH, SHORT_LENGTH]


def test_each_draw_of_a_text_differs_from_the_others_by_one_word_near_each_end():
    for length, count in kit_texts.DRAWS.items():
        first = long_text(length)
        draws = [long_text(length, draw) for draw in range(1, count)]
        assert len({first, *draws}) == count
        for draw in draws:
            assert len(draw) == length and len(draw.split()) == len(first.split())
            changed = [i for i, (a, b) in enumerate(zip(first, draw, strict=True)) if a != b]
            assert changed[0] < length / 10 and changed[-1] > length - length / 10
            assert {first[i : i + 6] for i in (changed[0], changed[-1] - 5)} <= {"vector"}
            assert kit_texts.DIGESTS[draw.name] == kit_texts.digest_of(draw)


def test_the_limit_of_growth_is_a_few_times_ten():
    assert 20 <= MOST_GROWTH <= 40
    check(Timed({LONG_LENGTH: [MOST_GROWTH * 0.1], SHORT_LENGTH: [0.1, 0.1]}))


def test_a_wrong_short_answer_is_a_wrong_answer():
    class Wrong(Timed):
        def measuring(
            self, expected: Any, most_seconds: float | None = None
        ) -> Callable[..., tuple[Any, float]]:
            def call(text: str, size: int, overlap: int) -> tuple[Any, float]:
                return (expected if len(text) == LONG_LENGTH else ["wrong"]), 0.1

            return call

    with pytest.raises(RuleBroken, match="Verdict: the answer is wrong; the time is not the"):
        check(Wrong({}))


# --- In a real worker, with the machine made busy ----------------------------------------


def spin() -> None:
    while True:
        pass


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """Two processes that use a CPU each for as long as the test runs."""
    context = multiprocessing.get_context("fork")
    spinners = [context.Process(target=spin, daemon=True) for _ in range(2)]
    for spinner in spinners:
        spinner.start()
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.join()



def long_document_outcome(zygote: Zygote, path: Path, lesson: str) -> str:
    """How the lesson's long-document test ends for `path`, run in a real worker."""
    backend = SandboxBackend(zygote, (CodeCell(0, path.name, path.read_text()),), Limits())
    backend.load()
    try:
        proxy = SubmissionProxy(backend)
        proxy.begin_test(long_texts.LONG_TEXT_SECONDS)
        test = grader_tests(lesson, "hidden")["test_a_long_document"]
        reference = load_reference(KIT, LESSONS[lesson])
        try:
            test(submission=proxy, reference=reference)  # type: ignore[operator]
        except RuleBroken as broken:
            return "failed: " + str(broken).rsplit("\n", 1)[-1][:40]
        return "passed"
    finally:
        backend.close()


# The quadratic known mistake that grows the least, a recursive one, the linear alternative
# twenty times slower than the reference, and the one a busy machine used to fail.
SAMPLE = {
    ("mistakes", "chunking_pipeline", "spans_list_rebuilt_every_step.py"): "failed: Verdict: on",
    # Right chunk_text, but process_document's char_start grows with the square.
    (
        "mistakes",
        "chunking_pipeline",
        "char_start_counted_from_the_start_every_chunk.py",
    ): "failed: Verdict: on",
    ("mistakes", "char_chunk", "recursive_windows.py"): "failed: Verdict: your code raise",
    ("alternatives", "char_chunk", "slow_checks_every_character.py"): "passed",
    ("alternatives", "chunking_pipeline", "hybrid_generator.py"): "passed",
}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the machine is made busy by forking")
def test_on_a_busy_machine_growing_work_fails_and_slow_linear_work_passes(busy_machine):
    with Zygote(ZygoteSettings(Limits())) as zygote:
        outcomes = {
            key: long_document_outcome(zygote, SOLUTIONS.joinpath(*key), key[1])[: len(want)]
            for key, want in SAMPLE.items()
        }
    assert outcomes == SAMPLE


# The linear alternative twenty times slower than the reference, with a loop a student
# left in for overlap 0.
SLOW_AND_LOOPING_ON_ONE_SETTING = (
    SOLUTIONS.joinpath("alternatives", "char_chunk", "slow_checks_every_character.py")
    .read_text()
    .replace(
        "        start += size - overlap\n",
        "        while overlap == 0:\n            pass\n        start += size - overlap\n",
    )
)


def test_a_slow_solution_known_to_spin_keeps_its_long_document_points(tmp_path: Path):
    # A loop on one setting loses the checks of that setting, never the long document's.
    with Zygote(ZygoteSettings(Limits())) as zygote:
        assert "while overlap == 0" in SLOW_AND_LOOPING_ON_ONE_SETTING
        cell = CodeCell(0, "char_chunk.py", SLOW_AND_LOOPING_ON_ONE_SETTING)
        reference = load_reference(KIT, LESSONS["char_chunk"])
        backend = SandboxBackend(zygote, (cell,), Limits(), ReferenceTimes(reference))
        backend.load()
        try:
            proxy = SubmissionProxy(backend)
            proxy.begin_test()
            with pytest.raises(CallTimedOut):
                proxy.chunk("abcdefghi", 3, 0)
            assert backend.spinning
            proxy.begin_test(long_texts.LONG_TEXT_SECONDS)
            test = grader_tests("char_chunk", "hidden")["test_a_long_document"]
            test(submission=proxy, reference=reference)
        finally:
            backend.close()
