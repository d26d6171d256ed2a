"""Hidden checks of the chunking_pipeline lesson: a cut at every place of a window, for every
overlap; every other character before a space after a real sentence end; an empty text."""

from __future__ import annotations

import string
from typing import Any

import pytest

from chunklab.suites.checks import expect_for_all
from chunklab.suites.chunking_pipeline.hidden_cutting import check_cuts
from chunklab.suites.chunking_pipeline.pipeline_tries import EMPTY_SETTINGS, Tries, ends_by
from chunklab.suites.chunking_pipeline.test_hidden import CUT_TRIES, SENTENCE_TRIES
from chunklab.suites.chunking_pipeline.test_visible import Pipeline, expect_chunks, keep_all

pytestmark = pytest.mark.visibility("hidden")

# Window sizes small enough that every place in a window, and every overlap, can be tried.
SIZES = (3, 4, 5, 6, 7)


def every_place(gap: str) -> list[tuple[str, tuple[int, int]]]:
    """`gap` once, at every place of the first two windows, for every size and overlap."""
    return [
        ("c" * before + gap + "c" * (2 * size), (size, overlap))
        for size in SIZES
        for overlap in range(size)
        for before in range(2 * size)
    ]


def check_all(submission: Any, cases: list[tuple[str, tuple[int, int]]], **options: Any) -> None:
    """check_cuts on each case, every call sent ahead together; the shortest failure shown.

    The cases of one setting share a pipeline: most of them are a few characters
    long, and making a pipeline is a call of its own. A case that fails on the
    shared pipeline is checked again on a fresh one, which decides (see
    `expect_for_all`), so state kept between calls is left to the checks of
    that rule. A call that does not finish or ends the worker fails the check.
    """
    with submission.ahead() as later:
        made: dict[tuple[int, int], Any] = {}
        for text, (chunk_size, overlap) in cases:
            if (chunk_size, overlap) not in made:
                made[chunk_size, overlap] = later.ChunkingPipeline(
                    chunk_size=chunk_size, overlap=overlap, min_chunk_size=0
                )
            made[chunk_size, overlap].chunk_text(text)
    pipes: dict[tuple[int, int], Pipeline] = {}

    def check(case: tuple[str, tuple[int, int]]) -> None:
        text, settings = case
        if settings not in pipes:
            # A pipeline that could not be made is tried again at the next case.
            pipes[settings] = keep_all(submission, *settings)
        check_cuts(pipes[settings], text, **options)

    def alone(case: tuple[str, tuple[int, int]]) -> None:
        check_cuts(keep_all(submission, *case[1]), case[0], **options)

    expect_for_all(cases, check, size=lambda case: len(case[0]), alone=alone)


@pytest.mark.rule(
    "A chunk ends at the last usable whitespace wherever it stands in the window: one "
    "whitespace character at any place of a window, for any overlap."
)
@pytest.mark.points(2)
def test_whitespace_at_every_place_of_a_window(submission):
    with CUT_TRIES.offered(submission, ends_by("word")):
        check_all(submission, every_place(" "))


@pytest.mark.rule(
    "A chunk ends at the last usable sentence end wherever it stands in the window: one "
    "sentence end at any place of a window, for any overlap."
)
@pytest.mark.points(2)
def test_sentence_end_at_every_place_of_a_window(submission):
    with SENTENCE_TRIES.offered(submission, ends_by("sentence")):
        check_all(submission, every_place(". "), any_whitespace=True)


# Every character but the three marks, put before a space after a real sentence end.
NOT_MARKS = (
    "".join(sorted(set(string.ascii_letters + string.digits + string.punctuation) - set(".!?")))
    + "\u2026\u3002\uff01\uff1f\u00bf\u00a1"
)


@pytest.mark.rule(
    "Only ., ! and ? end sentences: a letter, a digit or any other mark before whitespace "
    "never does, even after a real sentence end in the same window."
)
@pytest.mark.points(2)
def test_no_other_character_ends_a_sentence(submission):
    cases = [
        (f"Hi. A{char} bc de fg", settings)
        for char in NOT_MARKS
        for settings in ((8, 0), (9, 2), (10, 1))
    ]
    with SENTENCE_TRIES.offered(submission, ends_by("sentence")):
        check_all(submission, cases, any_whitespace=True)


@pytest.mark.rule("chunk_text of an empty text gives [], whatever the settings.")
@pytest.mark.points(1)
def test_empty_text_gives_no_chunks(submission):
    with EMPTY_TRIES.offered(submission):
        cases: list[dict[str, int]] = [
            {},
            {"chunk_size": 1, "overlap": 0, "min_chunk_size": 0},
            {"chunk_size": 7, "overlap": 6},
            {"chunk_size": 30, "overlap": 5, "min_chunk_size": 0},
        ]
        with submission.ahead() as later:  # the calls below, sent together
            for settings in cases:
                later.ChunkingPipeline(**settings).chunk_text("")
        for settings in cases:
            expect_chunks(Pipeline(submission, **settings), "", [])


EMPTY_TRIES = Tries(
    EMPTY_SETTINGS,
    lambda submission, settings: expect_chunks(Pipeline(submission, **settings), "", []),
)


# Every input a failed check of this file may try (asked before any hidden check).
TRIED = (CUT_TRIES, SENTENCE_TRIES, EMPTY_TRIES)
