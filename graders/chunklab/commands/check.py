"""`chunklab check LESSON [FILE]`: a student's self-check of a `.py` file or a notebook.

The same public checks as the notebook's self-check cell, run in this process
on the student's own machine. Exit status 0 when every public check passes.
"""

from __future__ import annotations

import json
from pathlib import Path

from chunklab.errors import SubmissionError, UsageError
from chunklab.lessons import Lesson, get_lesson
from chunklab.reading.read import read_submission
from chunklab.reading.source import SubmissionSource
from chunklab.reading.student import file_lesson
from chunklab.running.in_process import InProcessBackend
from chunklab.running.submission_proxy import CallTimedOut
from chunklab.scoring.report import GradeReport, Problem
from chunklab.selfcheck import load_cells, missing_definition, run_public_checks
from chunklab.writing.check_text import all_passed, check_text


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


def load_problems(answer: dict[str, object]) -> tuple[Problem, ...]:
    found = answer.get("problems", [])
    return tuple(
        Problem(str(p.get("kind", "raised")), str(p.get("message", "")))
        for p in found
        if isinstance(p, dict)
    )


def check_source(source: SubmissionSource) -> GradeReport:
    lesson = source.lesson
    backend = InProcessBackend()
    try:
        answer = load_cells(backend, [cell.to_message() for cell in source.cells])
    except CallTimedOut as timeout:
        problem = Problem(
            "timeout",
            f"running {source.path.name} never finished ({timeout}); "
            "look for a loop at the top level of your code",
        )
        return run_public_checks(lesson, backend, submission=source.display, problem=problem)
    loaded = load_problems(answer)
    defined = [str(name) for name in answer.get("defined", [])]
    problem = missing_definition(
        lesson, defined, source.path.name, "keep the name and parameters the stub gives it."
    )
    if problem is not None and loaded:
        # The missing definition is most likely explained by the code that failed to run.
        problem = Problem(loaded[0].kind, f"{loaded[0].message}\n{problem.message}")
    return run_public_checks(
        lesson,
        backend,
        submission=source.display,
        problem=problem,
        warnings=() if problem else loaded,
    )


def error_report(lesson: Lesson, file: Path, error: SubmissionError) -> GradeReport:
    """Nothing of the file ran; the report still says the public checks' full marks."""
    problem = Problem(error.kind, str(error))
    return run_public_checks(lesson, InProcessBackend(), submission=str(file), problem=problem)


def lesson_of(file: Path) -> Lesson:
    """The lesson a file names (file name or notebook metadata), as `grade` tells it."""
    if not file.exists():
        raise UsageError(f"there is no file {file}; give the path of your .py file or notebook")
    named = file_lesson(file) if file.is_file() else None
    if named is not None:
        return get_lesson(named)
    try:
        return read_submission(file).lesson
    except SubmissionError as error:
        raise UsageError(
            f"{error} (or give the lesson first: chunklab check LESSON {file})"
        ) from None


def check_command(lesson_id: str | None, file: Path | None, *, as_json: bool) -> int:
    if lesson_id is not None:
        lesson = get_lesson(lesson_id)
    elif file is not None:
        lesson = lesson_of(file)
    else:
        raise UsageError("give your .py file or notebook, e.g. chunklab check char_chunk.py")
    path = file if file is not None else Path(lesson.file_name)
    try:
        path = find_file(lesson, file)
        report = check_source(read_submission(path, lesson.id))
    except SubmissionError as error:
        report = error_report(lesson, path, error)
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        print(f"Checking {path}\n")
        print(check_text(report))
    return 0 if all_passed(report) else 1
