"""`chunklab gradescope LESSON OUT.zip`: a Gradescope autograder for one lesson."""

from __future__ import annotations

from pathlib import Path

from chunklab.autograder.build import build_autograder
from chunklab.errors import UsageError
from chunklab.kit import find_kit
from chunklab.lessons import get_lesson
from chunklab.report_out.gradescope import GradescopeOptions


def gradescope_command(lesson_id: str, zip_path: Path, options: GradescopeOptions) -> int:
    if zip_path.suffix != ".zip":
        raise UsageError(f"{zip_path} should end in .zip (Gradescope takes a zip file)")
    if zip_path.is_dir():
        raise UsageError(f"{zip_path} is a folder; give the path of the zip file to write")
    lesson = get_lesson(lesson_id)
    build_autograder(find_kit(), lesson, zip_path, options)
    print(
        f"wrote the {lesson.id} autograder to {zip_path}; upload it as the autograder of a "
        "Gradescope programming assignment"
    )
    return 0
