"""How a class is cut into batches: one lesson per batch, in stretches of the input."""

from __future__ import annotations

from pathlib import Path

from chunklab.batch import BATCH_SIZE, WINDOW_BATCHES, batches
from chunklab.reading.read import SubmissionPath
from tests.conftest import LESSON_IDS


def interleaved_class(count: int) -> list[tuple[int, SubmissionPath]]:
    names = [f"s{n // 3:04d}_{LESSON_IDS[n % 3]}.py" for n in range(count)]
    return [(n, SubmissionPath(Path(name), name)) for n, name in enumerate(names)]


def lesson_of(item: tuple[int, SubmissionPath]) -> str:
    return next(lesson for lesson in LESSON_IDS if item[1].path.stem.endswith(lesson))


def test_each_batch_holds_one_lesson_and_every_submission_once():
    items = interleaved_class(300)
    cut = batches(items)
    assert len(cut) == 300 // BATCH_SIZE
    assert all(len(batch) == BATCH_SIZE for batch in cut)
    assert all(len({lesson_of(item) for item in batch}) == 1 for batch in cut)
    assert sorted(item for batch in cut for item in batch) == items


def test_batches_follow_the_input_a_stretch_at_a_time():
    """Few results wait to be printed in input order, however large the class."""
    window = BATCH_SIZE * WINDOW_BATCHES
    items = interleaved_class(1000)
    for number, batch in enumerate(batches(items)):
        stretch = {index // window for index, _ in batch}
        assert stretch == {number // WINDOW_BATCHES}
