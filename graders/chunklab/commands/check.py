"""`chunklab check LESSON [FILE]`: a student's self-check of a `.py` file or a notebook.

The public checks, run the way grading runs them (see `chunklab.student.selfcheck`):
in the sandbox where it starts on this machine, else in this process with
the same limits. Exit status 0 when every public check passes.
"""

from __future__ import annotations

import json
from pathlib import Path

from chunklab.errors import LessonNotFoundError, SubmissionError, UsageError
from chunklab.lessons import Lesson, get_lesson
from chunklab.reading.lesson_of import lesson_of
from chunklab.reading.read import read_submission
from chunklab.reading.source import SubmissionSource
from chunklab.reading.student import default_look
from chunklab.report_out.check_text import all_passed, check_text
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import SandboxStartError, Zygote, ZygoteSettings
from chunklab.scoring.report import GradeReport, problem_of
from chunklab.student.selfcheck import public_error_report, run_self_check
from chunklab.suite_run.in_process import InProcessZygote


def default_files(lesson: Lesson) -> list[Path]:
    """Where the lesson's file is looked for when none is given: here, then the bundle's folders."""
    return [
        Path(lesson.file_name),
        Path(f"{lesson.id}.ipynb"),
        Path("exercises") / lesson.file_name,
        Path("notebooks") / f"{lesson.id}.ipynb",
    ]


def find_file(lesson: Lesson, file: Path | None) -> Path:
    if file is not None:
        if not file.exists():
            raise SubmissionError(
                f"there is no file {file}; give the path of your .py file or notebook, "
                f"e.g. chunklab check {lesson.id} {lesson.file_name}"
            )
        return file
    for candidate in default_files(lesson):
        if candidate.is_file():
            return candidate
    looked = ", ".join(str(p) for p in default_files(lesson))
    raise SubmissionError(
        f"no file was given and none is here (looked for {looked}); give the path of your "
        f".py file or notebook, e.g. chunklab check {lesson.id} path/to/{lesson.file_name}"
    )


def start_sandbox(limits: Limits) -> Zygote | None:
    """The grading sandbox, or None where it cannot start or make a worker on this machine."""
    try:
        zygote = Zygote(ZygoteSettings(limits))
    except (OSError, ValueError):  # no fork, no descriptor passing
        return None
    try:
        zygote.spawn().kill()
    except (SandboxStartError, OSError, ValueError, AttributeError):
        zygote.close()
        return None
    return zygote


def check_source(source: SubmissionSource, limits: Limits, *, sandbox: bool = True) -> GradeReport:
    """The public checks' report of a submission, as grading would run them."""
    zygote = start_sandbox(limits) if sandbox else None
    return run_self_check(source, limits, zygote or InProcessZygote(limits))


def lesson_to_check(file: Path) -> Lesson:
    """The lesson a file is for, as `grade` tells it (`lesson_of`)."""
    if not file.exists():
        raise UsageError(f"there is no file {file}; give the path of your .py file or notebook")
    try:
        if file.is_file():
            # A look is enough, so a file that does not run is still checked (and told why).
            look = default_look().at(file)
            try:
                return lesson_of(file, metadata=look.metadata_lesson)
            except LessonNotFoundError:
                if look.skipped is None:
                    raise
        # A folder, or a file too large or unreadable to look into: reading tells why.
        return read_submission(file).lesson
    except LessonNotFoundError:
        # The grader's message speaks of `grade --lesson`; here the lesson comes first.
        raise UsageError(
            f"cannot tell which lesson {file.name} is for; name the file after its lesson "
            f"(e.g. char_chunk.py) or give the lesson first: chunklab check LESSON {file}"
        ) from None
    except SubmissionError as error:
        raise UsageError(
            f"{error} (or give the lesson first: chunklab check LESSON {file})"
        ) from None


def check_command(
    lesson_id: str | None,
    file: Path | None,
    *,
    as_json: bool,
    limits: Limits | None = None,
    sandbox: bool = True,
) -> int:
    if lesson_id is not None:
        lesson = get_lesson(lesson_id)
    elif file is not None:
        lesson = lesson_to_check(file)
    else:
        raise UsageError("give your .py file or notebook, e.g. chunklab check char_chunk.py")
    path = file if file is not None else Path(lesson.file_name)
    try:
        path = find_file(lesson, file)
        report = check_source(read_submission(path, lesson.id), limits or Limits(), sandbox=sandbox)
    except SubmissionError as error:
        report = public_error_report(lesson, str(path), problem_of(error))
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        print(f"Checking {path}\n")
        print(check_text(report))
    return 0 if all_passed(report) else 1
