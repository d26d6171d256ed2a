"""The `chunklab` command: parses arguments and hands them to one function per command."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from chunklab.errors import ChunklabError, UsageError
from chunklab.lessons import LESSONS
from chunklab.sandbox.limits import Limits


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chunklab",
        description="Autograded exercises for cutting documents into overlapping chunks.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade = commands.add_parser("grade", help="grade submissions into JSON scores")
    grade.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a .py file, an .ipynb notebook, or a folder of submissions",
    )
    grade.add_argument(
        "--lesson", choices=sorted(LESSONS), help="grade every submission as this lesson"
    )
    grade.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="also write one JSON file per submission, gradebook.csv and summary.json",
    )
    grade.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="submissions graded at once (default: the number of CPUs)",
    )
    grade.add_argument(
        "--format",
        choices=("json", "gradescope"),
        default="json",
        help="json: one JSON object per line; gradescope: Gradescope's results.json",
    )
    grade.add_argument(
        "--resume", action="store_true", help="skip submissions already graded in --out"
    )
    grade.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="grade on the Dask cluster whose scheduler is at ADDRESS (chunklab[dask])",
    )
    Limits.add_arguments(grade)

    check = commands.add_parser("check", help="a student's self-check: public tests only")
    check.add_argument("lesson", choices=sorted(LESSONS), metavar="LESSON")
    check.add_argument(
        "file",
        type=Path,
        nargs="?",
        metavar="FILE",
        help="your .py file or notebook (default: the lesson's file here)",
    )
    check.add_argument("--json", action="store_true", help="print JSON instead of text")

    commands.add_parser(
        "validate", help="prove the graders: references, stubs, mistakes, notebooks"
    )

    release = commands.add_parser("release", help="write the student bundle into DIR")
    release.add_argument("dest", type=Path, metavar="DIR")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "grade":
            from chunklab.commands.grade import grade_command

            if args.jobs < 1:
                raise UsageError("--jobs must be 1 or more")
            return grade_command(
                args.paths,
                lesson_id=args.lesson,
                out_dir=args.out,
                jobs=args.jobs,
                output_format=args.format,
                resume=args.resume,
                limits=Limits.from_arguments(args),
                dask=args.dask,
            )
        if args.command == "check":
            from chunklab.commands.check import check_command

            return check_command(args.lesson, args.file, as_json=args.json)
        if args.command == "validate":
            from chunklab.commands.validate import validate_command

            return validate_command()
        from chunklab.commands.release import release_command

        return release_command(args.dest)
    except UsageError as error:
        print(f"chunklab {args.command}: {error}", file=sys.stderr)
        return 2
    except ChunklabError as error:
        print(f"chunklab {args.command}: {error}", file=sys.stderr)
        return 1
