"""What `run_autograder` runs: the whole submission folder graded as one submission.

It always writes `results/results.json`: a broken submission scores 0 with
the reason in the student's words, and so does a failure of the kit itself
(then the details go to standard output, which only the instructor sees).
The root is `/autograder`, or `$AUTOGRADER_ROOT` when it is set.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from chunklab.autograder.build import CONFIG_NAME, KIT_FOLDER
from chunklab.errors import ChunklabError, SubmissionError
from chunklab.kit import Kit
from chunklab.lessons import Lesson, get_lesson
from chunklab.pipeline.parallel import grade_many
from chunklab.reading.read import SubmissionPath
from chunklab.reading.student import pick_file
from chunklab.report_out.files import write_json
from chunklab.report_out.gradescope import GradescopeOptions, gradescope_results
from chunklab.sandbox.limits import Limits
from chunklab.scoring.feedback_policy import with_hidden_feedback
from chunklab.scoring.report import GradeReport, Problem, error_report
from chunklab.suites.digest import KitVersion, this_kit

DEFAULT_ROOT = "/autograder"
# What a report names when the submission folder could not be read to choose a file.
UNREAD_FOLDER = "(the submission folder)"
KIT_FAILED = (
    "The autograder failed while grading your submission, so this 0 says nothing about "
    "your work. Please tell your instructor, who can regrade it once the autograder is fixed."
)


@dataclass(frozen=True)
class Submitter:
    """Who handed the submission in, from Gradescope's submission_metadata.json."""

    student: str = ""
    submission_id: str = ""


@dataclass(frozen=True)
class AutograderSetup:
    lesson: Lesson
    kit: Kit
    options: GradescopeOptions
    # The kit version and suites digest the zip was built with.
    built_with: KitVersion


class OtherSuitesInstalledError(ChunklabError):
    """The autograder runs other suites or hidden inputs than its zip was built with."""

    kind = "other_suites"


def refuse_other_suites(built_with: KitVersion) -> None:
    """Grade only with the suites and hidden inputs the zip was built with."""
    if this_kit() != built_with:
        raise OtherSuitesInstalledError(
            f"the autograder was built with chunklab {built_with.version} (suites "
            f"{built_with.suites}) but runs chunklab {this_kit().version} (suites "
            f"{this_kit().suites}); build the zip again with `chunklab gradescope` and upload it"
        )


def autograder_root() -> Path:
    return Path(os.environ.get("AUTOGRADER_ROOT") or DEFAULT_ROOT)


def read_setup(root: Path) -> AutograderSetup:
    source = root / "source"
    config = json.loads((source / CONFIG_NAME).read_text(encoding="utf-8"))
    return AutograderSetup(
        lesson=get_lesson(config["lesson"]),
        kit=Kit(source / KIT_FOLDER),
        options=GradescopeOptions(
            config["hidden_visibility"],
            config["stdout_visibility"],
            config.get("hidden_feedback", "rule"),
        ),
        built_with=KitVersion(**config["kit"]),
    )


def read_submitter(root: Path) -> Submitter:
    """The student's name (or email) and the submission id; empty when not given."""
    try:
        metadata = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Submitter()
    if not isinstance(metadata, dict):
        return Submitter()
    users: list[Any] = metadata["users"] if isinstance(metadata.get("users"), list) else []
    names = [
        str(user.get("name") or user.get("email") or "") for user in users if isinstance(user, dict)
    ]
    return Submitter(", ".join(name for name in names if name), str(metadata.get("id") or ""))


def nothing_to_grade(lesson: Lesson, submitter: Submitter, max_score: float) -> GradeReport:
    problem = Problem(
        "no_submission",
        f"No .py file or notebook was found in your submission. Hand in {lesson.file_name} "
        f"or the lesson's notebook ({lesson.id}.ipynb).",
    )
    return error_report(
        lesson.id, "(nothing handed in)", problem, max_score=max_score, student=submitter.student
    )


def grade_folder(root: Path, setup: AutograderSetup, submitter: Submitter) -> GradeReport:
    """The report of the submission folder, graded as one submission of the lesson."""
    folder = root / "submission"
    try:
        candidates = pick_file(folder, setup.lesson) if folder.is_dir() else []
    except SubmissionError:
        # A link inside, too many files: the student's error, which reading the folder
        # reports in the words a local run uses.
        candidates = None
    if candidates == []:
        from chunklab.suite_run.suite_contents import suite_contents

        return nothing_to_grade(setup.lesson, submitter, suite_contents(setup.lesson).max_score)
    display = candidates[0].relative_to(folder).as_posix() if candidates else UNREAD_FOLDER
    item = SubmissionPath(folder, display, submitter.student, setup.lesson.id)
    [(_, report)] = list(grade_many([(0, item)], setup.lesson.id, setup.kit, Limits(), 1))
    return replace(report, student=submitter.student)


def graded_note(report: GradeReport, root: Path, setup: AutograderSetup) -> str:
    """Which file was graded, and which others were not: a student who handed in two knows."""
    folder = root / "submission"
    if not folder.is_dir() or report.submission.startswith("("):
        return ""
    # Every other .py file and notebook handed in: the student sees which one counted.
    others = sorted(
        entry.name
        for entry in os.scandir(folder)
        if entry.name.endswith((".py", ".ipynb"))
        and entry.is_file(follow_symlinks=False)
        and entry.name != report.submission
    )
    note = f"Graded {report.submission} as the lesson {setup.lesson.id}."
    if others:
        note += f" Not graded: {', '.join(others)}."
    return note


def kit_failure(error: BaseException, submitter: Submitter) -> dict[str, Any]:
    return {
        "score": 0,
        "output": KIT_FAILED,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "student": submitter.student,
            "submission_id": submitter.submission_id,
            "error": f"{type(error).__name__}: {error}",
        },
        "tests": [],
    }


def run(root: Path) -> dict[str, Any]:
    """results.json's content; never raises."""
    submitter = Submitter()
    try:
        submitter = read_submitter(root)
        setup = read_setup(root)
        refuse_other_suites(setup.built_with)
        # Hidden inputs stay hidden in results.json and in what is printed alike.
        report = with_hidden_feedback(
            grade_folder(root, setup, submitter), setup.options.hidden_feedback
        )
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        results = gradescope_results(
            report, setup.options, {"submission_id": submitter.submission_id}
        )
        note = graded_note(report, root, setup)
        return {**results, "output": "\n".join(t for t in (note, results["output"]) if t)}
    except BaseException as error:  # noqa: BLE001 - results.json is written whatever failed
        traceback.print_exc(file=sys.stdout)
        return kit_failure(error, submitter)


def main() -> int:
    root = autograder_root()
    results = run(root)
    write_json(root / "results" / "results.json", results)
    print(f"score {results['score']}; wrote {root / 'results' / 'results.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
