"""`chunklab grade`'s options: declared once, parsed into one frozen value, checked at once."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

import pytest

from chunklab.cli import build_parser
from chunklab.commands.grade_options import GradeOptions
from chunklab.commands.option_fields import add_options, options_from
from chunklab.errors import UsageError
from chunklab.sandbox.limits import Limits
from tests.test_docs import subcommands


def parsed(*args: str) -> GradeOptions:
    parser = argparse.ArgumentParser()
    add_options(parser, GradeOptions)
    return options_from(parser.parse_args(args), GradeOptions)


def test_the_grade_command_has_one_flag_per_field_and_the_limits():
    grade = subcommands(build_parser())["grade"]
    declared = {f.metadata["flag"] for f in fields(GradeOptions) if "flag" in f.metadata}
    limits = {"--" + f.name.replace("_", "-") for f in fields(Limits)}
    assert set(grade._option_string_actions) == declared | limits | {"-h", "--help"}


def test_no_flag_gives_the_declared_defaults():
    assert parsed() == GradeOptions()


def test_each_flag_sets_its_field():
    options = parsed(
        "--lesson", "word_chunk", "--out", "results", "--jobs", "3", "--format", "gradescope",
        "--from", "moodle", "--points", "20", "--missing-as-zero", "--hidden-feedback", "none",
        "--roster", "class.csv", "--roster-id", "Login", "--call-seconds", "1.5",
    )  # fmt: skip
    assert options == GradeOptions(
        lesson="word_chunk", out=Path("results"), jobs=3, output_format="gradescope",
        download_from="moodle", points=20.0, missing_as_zero=True, hidden_feedback="none",
        roster=Path("class.csv"), roster_id="Login", limits=Limits(call_seconds=1.5),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"jobs": 0}, "--jobs must be 1 or more"),
        ({"similarity": True}, "--similarity writes into the output folder: add --out DIR"),
        ({"out": Path("o"), "points": 0.0}, "--points must be more than 0, not 0"),
        ({"resume": True}, "--resume needs --out DIR (where files are)"),
        ({"lms": "canvas"}, "--lms needs --out DIR (where files are)"),
        ({"feedback": "pdf"}, "--feedback must be html or md, not 'pdf'"),
        ({"hidden_feedback": "some"}, "--hidden-feedback must be full, rule or none, not 'some'"),
    ],
)
def test_options_that_cannot_be_honoured_are_usage_errors(given, said):
    with pytest.raises(UsageError) as error:
        GradeOptions(**given)
    assert str(error.value) == said


def test_the_command_line_says_a_bad_option_before_grading(chunklab):
    result = chunklab("grade", "--jobs", "0", "solutions/char_chunk.py")
    assert result.exit_code == 2
    assert result.stderr == "chunklab grade: --jobs must be 1 or more\n"
    assert result.stdout == ""
