"""The lessons: a registry of the lesson folders, each declaring what a submission defines.

Every folder of `suites/` that holds a `lesson.json` is a lesson; its name is the
lesson id. The folder holds all a teacher writes for the lesson apart from the
stub, the reference solution and the notebook: the declaration, the rules text
(`rules.md`), the visible and hidden grader tests, their inputs and helpers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from chunklab.errors import KitLayoutError, UnknownLessonError

LESSONS_DIR = Path(__file__).resolve().parent / "suites"
DECLARATION = "lesson.json"
ENTRY_KINDS = ("function", "class")
# A lesson id names a folder, a module and a file: a plain lower-case identifier.
LESSON_ID = re.compile(r"[a-z][a-z0-9_]*")


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

    @property
    def folder(self) -> Path:
        """The lesson folder: declaration, rules text, grader suites and their helpers."""
        return LESSONS_DIR / self.id


def read_declaration(path: Path) -> tuple[int, Lesson]:
    """A lesson folder's `lesson.json`: its position among the lessons, and the lesson."""
    lesson_id = path.parent.name
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
        lesson = Lesson(
            lesson_id, str(fields["title"]), str(fields["entry_point"]), str(fields["entry_kind"])
        )
        order = int(fields["order"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KitLayoutError(
            f"{path} must be a JSON object with title, entry_point, entry_kind and order: {exc}"
        ) from None
    if not LESSON_ID.fullmatch(lesson_id) or lesson.entry_kind not in ENTRY_KINDS:
        raise KitLayoutError(
            f"{path}: the folder name must be a lower-case identifier and entry_kind one of "
            f"{', '.join(ENTRY_KINDS)}"
        )
    return order, lesson


def discover(folder: Path = LESSONS_DIR) -> dict[str, Lesson]:
    """Every lesson folder under `folder`, in their declared order."""
    found = sorted(read_declaration(path) for path in folder.glob(f"*/{DECLARATION}"))
    return {lesson.id: lesson for _, lesson in found}


LESSONS: dict[str, Lesson] = discover()


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
