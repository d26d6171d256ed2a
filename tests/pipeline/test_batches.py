"""How a class is shared out: one submission at a time, by lesson, within a stretch of the input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunklab.kit import find_kit
from chunklab.lessons import LESSONS
from chunklab.pipeline import parallel
from chunklab.pipeline import session as grading
from chunklab.pipeline.parallel import grade_fed, grade_many
from chunklab.pipeline.pool import WorkPool
from chunklab.pipeline.session import FedSession, GradingSession
from chunklab.reading import read as read_module
from chunklab.reading.read import SubmissionPath
from chunklab.sandbox.limits import Limits
from chunklab.suite_run.suite_contents import suite_contents
from tests.conftest import LESSON_IDS

# Full marks of the two lessons these tests grade, as their suites say.
CHAR_FULL = suite_contents(LESSONS["char_chunk"]).max_score
WORD_FULL = suite_contents(LESSONS["word_chunk"]).max_score

KIT = Path(__file__).resolve().parents[2]


def interleaved_class(count: int) -> list[tuple[int, SubmissionPath]]:
    names = [f"s{n // 3:04d}_{LESSON_IDS[n % 3]}.py" for n in range(count)]
    return [(n, SubmissionPath(Path(name), name)) for n, name in enumerate(names)]


def test_a_session_gets_its_lesson_in_input_order_and_a_free_process_the_earliest():
    pool = WorkPool(interleaved_class(9), None)
    assert pool.take("word_chunk")[:2] == (1, interleaved_class(9)[1][1])
    assert [pool.take("word_chunk")[0] for _ in range(2)] == [4, 7]
    assert pool.take("word_chunk") is None  # its lesson is used up: the session ends
    assert [pool.take(None)[0] for _ in range(3)] == [0, 2, 3]


def test_every_submission_is_handed_out_once_whatever_is_asked():
    items = interleaved_class(300)
    pool = WorkPool(items, None, window=1000)
    asked = [None, "char_chunk", "chunking_pipeline", "word_chunk", "char_chunk"]
    handed = []
    while pool.has_pending():
        for lesson in asked:
            taken = pool.take(lesson)
            if taken is not None:
                handed.append(taken[0])
    assert sorted(handed) == list(range(300))


def test_names_without_a_lesson_fill_any_session():
    items = [(0, SubmissionPath(Path("alice"), "alice")), (1, SubmissionPath(Path("bob"), "bob"))]
    pool = WorkPool(items, None)
    assert pool.take("char_chunk")[0] == 0
    assert pool.take(None)[0] == 1


def test_nothing_is_handed_out_past_the_window_until_the_earliest_finishes():
    """Few results wait to be printed in input order, however large the class."""
    pool = WorkPool(interleaved_class(30), None, window=6)
    taken = [pool.take(None)[0] for _ in range(6)]
    assert taken == [0, 1, 2, 3, 4, 5]
    assert pool.take(None) is None and pool.has_pending()
    for index in (1, 2, 3):
        pool.finish(index)
    assert pool.take(None) is None  # 0 still holds the window
    pool.finish(0)
    assert [pool.take(None)[0] for _ in range(4)] == [6, 7, 8, 9]
    assert pool.take(None) is None


def test_the_count_left_of_a_lesson_sizes_a_session():
    pool = WorkPool(interleaved_class(30), None)
    assert pool.take("chunking_pipeline")[2] == 9


@pytest.fixture(scope="module")
def session():
    graded = GradingSession(find_kit(), Limits())
    yield graded
    graded.close()


def class_folder(tmp_path: Path, files: dict[str, str]) -> list[tuple[int, SubmissionPath]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [(n, SubmissionPath(tmp_path / name, name)) for n, name in enumerate(files)]


REFERENCE = (KIT / "solutions" / "char_chunk.py").read_text()
WORD_REFERENCE = (KIT / "solutions" / "word_chunk.py").read_text()


def test_a_session_takes_each_submission_only_when_it_reaches_its_slot(session, tmp_path):
    """No submission waits in a batch behind a slow one: it is taken when its turn comes."""
    items = class_folder(
        tmp_path,
        {
            "a_char_chunk.py": REFERENCE,
            "b_char_chunk.py": REFERENCE,
            "c_char_chunk.ipynb": "not a notebook",
            "d_char_chunk.py": REFERENCE,
        },
    )
    pool = WorkPool(items, None)
    log: list[str] = []

    def take(lesson):
        taken = pool.take(lesson)
        log.append(f"take {taken[0] if taken else None}")
        return taken

    fed = FedSession(take, None, session)
    opened = fed._opener

    def watched(key, lesson):
        inner = opened(key, lesson)

        def open_slot():
            log.append(f"open {key}")
            return inner()

        return open_slot

    fed._opener = watched
    reports = fed.grade(3)
    assert log == [
        "take 0",
        "open s0",
        "open s1",
        "take 1",
        "open s2",
        "take 2",  # cannot be read: reported, and the slot takes the next one
        "take 3",
    ]
    assert sorted(reports) == [0, 1, 2, 3]
    assert [reports[i].score for i in (0, 1, 3)] == [CHAR_FULL] * 3
    assert reports[2].status == "error" and reports[2].errors[0].kind == "broken_notebook"


def test_a_submission_of_another_lesson_is_graded_after_the_session(session, tmp_path):
    items = class_folder(
        tmp_path,
        {"a_char_chunk.py": REFERENCE, "bob": "", "c_char_chunk.py": REFERENCE},
    )
    (tmp_path / "bob").unlink()
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "word_chunk.py").write_text(WORD_REFERENCE)
    pool = WorkPool(items, None)
    reports = FedSession(pool.take, None, session).grade(5)
    assert {index: (r.lesson, r.score) for index, r in reports.items()} == {
        0: ("char_chunk", CHAR_FULL),
        1: ("word_chunk", WORD_FULL),
        2: ("char_chunk", CHAR_FULL),
    }


def test_nothing_left_to_take_grades_nothing(session):
    assert FedSession(WorkPool([], None).take, None, session).grade(5) == {}


def test_shared_out_or_in_one_process_the_reports_are_the_same(tmp_path):
    files = {f"s{n:02d}_char_chunk.py": REFERENCE for n in range(5)}
    files |= {f"s{n:02d}_word_chunk.py": WORD_REFERENCE for n in range(5, 8)}
    files["s08_char_chunk.py"] = "def chunk(text, size, overlap):\n    return [text]\n"
    items = class_folder(tmp_path, files)
    kit = find_kit()
    alone = dict(grade_many(items, None, kit, Limits(), 1))
    shared = list(grade_many(items, None, kit, Limits(), 2))
    assert sorted(index for index, _ in shared) == list(range(len(files)))
    assert {i: r.score for i, r in shared} == {i: r.score for i, r in alone.items()}
    assert alone[8].score < CHAR_FULL


def test_a_feed_that_fails_before_giving_any_work_ends_the_grading_process(session):
    def take(lesson):
        raise EOFError("the parent is gone")

    with pytest.raises(EOFError):
        grade_fed(take, None, session)


def test_a_defect_that_stops_a_session_grades_each_taken_submission_on_its_own(
    session, tmp_path, monkeypatch
):
    items = class_folder(tmp_path, {"a_char_chunk.py": REFERENCE, "b_char_chunk.py": REFERENCE})
    real = grading.run_suites
    calls = []

    def broken_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a defect in the session")
        return real(*args, **kwargs)

    monkeypatch.setattr(grading, "run_suites", broken_once)
    pool = WorkPool(items, None)
    # The session stopped before its next slot: only what it took is graded again.
    assert {i: r.score for i, r in grade_fed(pool.take, None, session)} == {0: CHAR_FULL}
    assert {i: r.score for i, r in grade_fed(pool.take, None, session)} == {1: CHAR_FULL}
    assert grade_fed(pool.take, None, session) is None


def test_a_grading_process_that_dies_costs_only_what_it_held(tmp_path, monkeypatch):
    files = {f"s{n:02d}_char_chunk.py": REFERENCE for n in range(6)}
    files["s03_char_chunk.py"] = "# dies\n" + REFERENCE
    items = class_folder(tmp_path, files)
    real = read_module.read_submission

    def read(path, *args):
        if "dies" in path.read_text():
            os._exit(1)  # the grading process itself stops, as on a crash
        return real(path, *args)

    # Grading processes are forked, so they read with this too. Another test may have
    # left a thread running in this process (a Dask cluster's), which makes the kit
    # choose forkserver; the reader's patch needs a fork.
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    monkeypatch.setattr(read_module, "read_submission", read)
    reports = dict(grade_many(items, None, find_kit(), Limits(), 2))
    assert sorted(reports) == list(range(6))
    assert reports[3].status == "error" and "stopped" in reports[3].errors[0].message
    lost = [i for i, r in reports.items() if r.status == "error"]
    graded = [i for i, r in reports.items() if r.score == CHAR_FULL]
    assert 3 in lost and sorted(lost + graded) == list(range(6))
