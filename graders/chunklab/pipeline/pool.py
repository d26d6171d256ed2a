"""Which submission a grading process takes next: one at a time, in input order, by lesson.

Submissions wait by the lesson their path suggests (`likely_lesson`) (the lesson is still
decided when each is read). A grading process that is running a pytest
session of one lesson asks for the next submission of that lesson; one that
is free asks for any, and gets the earliest. Only submissions within a
stretch of the input after the earliest one not yet finished are handed
out, so results come back roughly in input order and few wait in memory to
be printed in that order, however large the class.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from chunklab.reading.lesson_of import likely_lesson
from chunklab.reading.read import SubmissionPath

# How far past the earliest unfinished submission others are handed out.
WINDOW = 480


def grades_here(count: int, jobs: int) -> bool:
    """Whether `count` submissions are graded in this process rather than by grading processes."""
    return jobs <= 1 or count <= 1


class WorkPool:
    """The submissions of a run, handed out one at a time and marked finished as they are."""

    def __init__(
        self,
        items: Sequence[tuple[int, SubmissionPath]],
        lesson_id: str | None,
        window: int = WINDOW,
    ) -> None:
        self.items = items
        self.window = window
        self.position = {index: position for position, (index, _) in enumerate(items)}
        # Positions in the input, by the lesson their name suggests ("" for none).
        self.pending: dict[str, deque[int]] = {}
        for position, (_, item) in enumerate(items):
            likely = likely_lesson(item.path, lesson_id)
            key = likely.id if likely else ""
            self.pending.setdefault(key, deque()).append(position)
        self.finished = [False] * len(items)
        self.earliest = 0  # the first position not finished
        self.unfinished = len(items)

    @property
    def done(self) -> bool:
        return self.unfinished == 0

    def has_pending(self) -> bool:
        return any(self.pending.values())

    def take(self, lesson: str | None) -> tuple[int, SubmissionPath, int] | None:
        """The next submission (index, path, how many more a session of its lesson may take).

        For a lesson: its earliest waiting submission, else the earliest whose
        lesson the name does not tell; None when neither is within reach.
        For any lesson (None): the earliest waiting; None when none is within
        reach (`has_pending` then tells whether to ask again later).
        """
        if lesson is not None:
            return self._take_from(lesson) or self._take_from("")
        fronts = [(waiting[0], key) for key, waiting in self.pending.items() if waiting]
        return self._take_from(min(fronts)[1]) if fronts else None

    def _take_from(self, key: str) -> tuple[int, SubmissionPath, int] | None:
        waiting = self.pending.get(key)
        if not waiting or waiting[0] >= self.earliest + self.window:
            return None
        index, item = self.items[waiting.popleft()]
        # A session of a lesson may also take those whose name tells no lesson.
        unnamed = len(self.pending.get("", ())) if key else 0
        return index, item, len(waiting) + unnamed

    def finish(self, index: int) -> None:
        position = self.position[index]
        if self.finished[position]:
            return
        self.finished[position] = True
        self.unfinished -= 1
        while self.earliest < len(self.finished) and self.finished[self.earliest]:
            self.earliest += 1
