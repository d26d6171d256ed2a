"""The `chunklab` command: parses arguments and hands them to one function per command."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from chunklab import __version__
from chunklab.commands.grade_options import GradeOptions
from chunklab.commands.option_fields import add_options, options_from
from chunklab.errors import ChunklabError, UsageError
from chunklab.lessons import LESSONS
from chunklab.sandbox.limits import Limits
from chunklab.scoring.feedback_policy import CHOICES as HIDDEN_FEEDBACK
from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK

EXIT_INTERRUPTED = 130
LESSON_LIST = ", ".join(LESSONS)


def command_parser(
    commands: argparse._SubParsersAction, name: str, summary: str, description: str, example: str
) -> argparse.ArgumentParser:
    """A sub-command whose --help says what it does and shows an example."""
    return commands.add_parser(
        name,
        help=summary,
        description=textwrap.fill(description, 79),
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def top_parser(
    description: str, example: str
) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(
        prog="chunklab",
        description=description,
        epilog=f"example:\n  {example}\n\nRun `chunklab COMMAND --help` for a command's "
        "options and an example.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chunklab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    return parser, commands


def add_check(commands: argparse._SubParsersAction) -> None:
    check = command_parser(
        commands,
        "check",
        "a student's self-check: public tests only",
        "Run the public checks of a lesson on your .py file or notebook and say which rule "
        "each failure breaks, with the input, what was expected and what your code returned. "
        "The lesson is taken from the file's name or the notebook's metadata when not given. "
        f"Lessons: {LESSON_LIST}.",
        "chunklab check char_chunk.py    (or: chunklab check char_chunk my_work.ipynb)",
    )
    check.add_argument(
        "targets",
        nargs="+",
        metavar="[LESSON] FILE",
        help="the lesson id (optional when the file names it) and your .py file or notebook; "
        "a lesson id alone checks the lesson's file in this folder",
    )
    check.add_argument("--json", action="store_true", help="print JSON instead of text")
    check.add_argument(
        "--in-process",
        action="store_true",
        help="run your code in this process, not in the grading sandbox (as a notebook does)",
    )
    Limits.add_arguments(check)


def add_grade(commands: argparse._SubParsersAction) -> None:
    grade = command_parser(
        commands,
        "grade",
        "grade submissions into JSON scores",
        "Grade .py files, notebooks and student folders (a folder per student, which may hold "
        "several lessons' files and helper modules). Each submission gets a JSON report; with "
        "--out, the reports, gradebooks and a summary are written as files. At a terminal you "
        "see a table; the JSON Lines go to standard output when it is not a terminal, or with "
        "--jsonl. A Canvas, Moodle or GitHub Classroom download (folder or zip) is read as it "
        "comes. Exit status: 0 when everything was graded or reported, 2 for a usage error, "
        "3 when a path holds no submission, 4 when a roster was given and some submissions "
        "match no one in it, 130 when interrupted.",
        "chunklab grade submissions/ --out results/ --roster roster.csv --lms canvas",
    )
    grade.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a .py file, an .ipynb notebook, or a folder of submissions",
    )
    add_options(grade, GradeOptions)


def add_gradescope(commands: argparse._SubParsersAction) -> None:
    from chunklab.report_out.gradescope import HIDDEN_VISIBILITIES, STDOUT_VISIBILITIES

    gradescope = command_parser(
        commands,
        "gradescope",
        "build a Gradescope autograder zip for one lesson",
        "Write a zip to upload as a Gradescope programming assignment's autograder: "
        "setup.sh and run_autograder at its root, the kit as a wheel, and the lesson's "
        "reference solution. run_autograder grades the whole submission as one and always "
        "writes results.json.",
        "chunklab gradescope char_chunk char_chunk_autograder.zip",
    )
    gradescope.add_argument("lesson", choices=sorted(LESSONS), metavar="LESSON")
    gradescope.add_argument("zip", type=Path, metavar="OUT.zip")
    gradescope.add_argument(
        "--hidden-visibility",
        choices=HIDDEN_VISIBILITIES,
        default=HIDDEN_VISIBILITIES[0],
        help="when students see the hidden tests' results (default: %(default)s)",
    )
    gradescope.add_argument(
        "--stdout-visibility",
        choices=STDOUT_VISIBILITIES,
        default=STDOUT_VISIBILITIES[0],
        help="when students see what the autograder printed (default: %(default)s)",
    )
    gradescope.add_argument(
        "--hidden-feedback",
        choices=HIDDEN_FEEDBACK,
        default=DEFAULT_HIDDEN_FEEDBACK,
        help="what a hidden test shows students: full (input, expected, got), rule (the rule "
        f"only), none (points only) (default: {DEFAULT_HIDDEN_FEEDBACK})",
    )


def add_mutants_options(validate: argparse.ArgumentParser) -> None:
    mutants = validate.add_argument_group("proving the graders by mutation")
    mutants.add_argument(
        "--mutants",
        action="store_true",
        help="grade every small change of the references instead; a mutant that keeps full "
        "marks and breaks a stated rule is a gap (exit status 1)",
    )
    mutants.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per CPU)"
    )
    mutants.add_argument(
        "--sample", type=int, metavar="N", help="only N mutants per lesson, spread evenly"
    )
    mutants.add_argument(
        "--touching", metavar="TEXT", help="only the mutants of reference lines holding TEXT"
    )


def build_parser() -> argparse.ArgumentParser:
    parser, commands = top_parser(
        "Autograded exercises for cutting documents into overlapping chunks.",
        "chunklab grade submissions/ --out results/",
    )
    add_grade(commands)
    add_check(commands)
    validate = command_parser(
        commands,
        "validate",
        "prove the graders: references, stubs, mistakes, notebooks",
        "For every lesson: the reference solution scores full marks, the stub scores zero, "
        "every known mistake loses points and every notebook runs. Prints a table; the exit "
        "status is not 0 when anything fails.",
        "chunklab validate",
    )
    validate.add_argument(
        "lessons", nargs="*", metavar="LESSON", help="only these lessons (default: every lesson)"
    )
    add_mutants_options(validate)
    release = command_parser(
        commands,
        "release",
        "write the student bundle into DIR",
        "Write what students get: stubs, notebooks, the self-check with its public checks "
        "and a README; never a reference solution or a hidden test.",
        "chunklab release student_bundle/",
    )
    release.add_argument("dest", type=Path, metavar="DIR")
    add_gradescope(commands)
    return parser


def build_student_parser() -> argparse.ArgumentParser:
    """The student bundle's command: the self-check only."""
    parser, commands = top_parser(
        "Check your chunking exercises before you hand them in.", "chunklab check char_chunk.py"
    )
    add_check(commands)
    return parser


def check_arguments(targets: list[str]) -> tuple[str | None, Path | None]:
    """`LESSON`, `FILE` or `LESSON FILE`."""
    if len(targets) > 2:
        raise UsageError("give at most a lesson id and one file")
    if len(targets) == 2:
        if targets[0] not in LESSONS:
            raise UsageError(f"there is no lesson {targets[0]!r}; the lessons are: {LESSON_LIST}")
        return targets[0], Path(targets[1])
    if targets[0] in LESSONS:
        return targets[0], None
    return None, Path(targets[0])


def run(args: argparse.Namespace) -> int:
    if args.command == "grade":
        from chunklab.commands.grade import grade_command

        return grade_command(args.paths, options_from(args, GradeOptions))
    if args.command == "check":
        from chunklab.commands.check import check_command

        lesson_id, file = check_arguments(args.targets)
        return check_command(
            lesson_id,
            file,
            as_json=args.json,
            limits=Limits.from_arguments(args),
            sandbox=not args.in_process,
        )
    if args.command == "validate":
        from chunklab.commands.validate import validate_command

        if args.mutants:
            from chunklab.commands.validate import validate_mutants_command

            if args.jobs < 1 or (args.sample is not None and args.sample < 1):
                raise UsageError("--jobs and --sample must be 1 or more")
            return validate_mutants_command(args.lessons, args.jobs, args.sample, args.touching)
        if args.sample is not None or args.touching is not None:
            raise UsageError("--sample and --touching choose mutants: give --mutants too")
        return validate_command(args.lessons)
    if args.command == "gradescope":
        from chunklab.commands.gradescope import gradescope_command
        from chunklab.report_out.gradescope import GradescopeOptions

        options = GradescopeOptions(
            args.hidden_visibility, args.stdout_visibility, args.hidden_feedback
        )
        return gradescope_command(args.lesson, args.zip, options)
    from chunklab.commands.release import release_command

    return release_command(args.dest)


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    args = (parser or build_parser()).parse_args(argv)
    try:
        return run(args)
    except UsageError as error:
        print(f"chunklab {args.command}: {error}", file=sys.stderr)
        return 2
    except ChunklabError as error:
        print(f"chunklab {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"chunklab {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`chunklab ... | head`): nothing more to say, and no traceback.
        from chunklab.report_out.streams import silence

        silence(sys.stdout)
        return 0


def script_main() -> int:
    """`main` for a process that ends with it: `chunklab` and `python -m chunklab`.

    What is left is frozen out of the collector's sight first: the interpreter's
    teardown would otherwise walk every object (pytest's too, after grading) for
    cyclic garbage once more, tens of milliseconds for nothing: the process's end
    frees it all the same.
    """
    code = main()
    gc.freeze()
    return code


def student_main(argv: Sequence[str] | None = None) -> int:
    return main(argv, build_student_parser())
