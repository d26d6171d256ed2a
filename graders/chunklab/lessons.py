"""The three lessons: their ids and the name each submission must define."""

from __future__ import annotations

from dataclasses import dataclass

from chunklab.errors import UnknownLessonError


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    # The function or class a submission must define.
    entry_point: str
    # "function" or "class": how the grader suites reach the entry point.
    entry_kind: str

    @property
    def file_name(self) -> str:
        return f"{self.id}.py"


LESSONS: dict[str, Lesson] = {
    lesson.id: lesson
    for lesson in (
        Lesson("char_chunk", "Character windows", "chunk", "function"),
        Lesson("word_chunk", "Word windows", "solve", "function"),
        Lesson(
            "chunking_pipeline", "A sentence-aware chunking pipeline", "ChunkingPipeline", "class"
        ),
    )
}


def get_lesson(lesson_id: str) -> Lesson:
    try:
        return LESSONS[lesson_id]
    except KeyError:
        known = ", ".join(LESSONS)
        raise UnknownLessonError(
            f"there is no lesson {lesson_id!r}; the lessons are: {known}"
        ) from None


def lesson_named_in(file_name: str) -> Lesson | None:
    """The lesson whose id appears in a file name, if exactly one does."""
    found = [lesson for lesson in LESSONS.values() if lesson.id in file_name]
    return found[0] if len(found) == 1 else None
