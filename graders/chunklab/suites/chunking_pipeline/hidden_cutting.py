"""Where the lesson's cutting rules let each chunk end: the grading side of chunking_pipeline.

This is the lesson's algorithm, written as a check. It stays with the hidden
checks and never goes to students: the public checks carry fixed tables of the
ends it allows on their own texts (`public_cuts.json`), made from it by
`python -m chunklab.authoring.build_public_cuts`.
"""

from __future__ import annotations

import hashlib
from array import array
from functools import lru_cache

from chunklab.suites.chunking_pipeline.test_visible import (
    Pipeline,
    basic_cuts,
    check_endings,
)
from chunklab.suites.chunking_pipeline.text_scans import SCANNED_FROM_LENGTH, WindowScan, scan_of


def allowed_ends(
    text: str,
    start: int,
    chunk_size: int,
    overlap: int,
    *,
    any_whitespace: bool = False,
    scan: WindowScan | None = None,
) -> dict[int, str]:
    """Every place a chunk cut at `start` may end, and which rule puts it there.

    Only for a window that does not reach the end of the text. Each way of reading
    the open choices gives one end; all of them are allowed. With `any_whitespace`,
    a window where the rules fall back to whitespace may end at any usable one: the
    checks of sentence ends leave which whitespace to the whitespace rule's own
    checks, so a wrong whitespace cut is not blamed on sentence ends. `scan` looks
    through the text (see `text_scans`); by default, through the window itself.
    """
    scan = scan or WindowScan(text)
    ends = rule_ends(scan, start, chunk_size, overlap)
    if any_whitespace and set(ends.values()) - {"sentence"}:
        # The rules fall back to whitespace here: no sentence end, or one with an unusable reading.
        lowest = start + overlap + 1
        for j in scan.spaces(start, start + chunk_size):
            # Keeping the whitespace or dropping it.
            for end in (j, j + 1):
                if end >= lowest and ends.get(end) != "sentence":
                    ends[end] = "any whitespace"
    return ends


def rule_ends(scan: WindowScan, start: int, chunk_size: int, overlap: int) -> dict[int, str]:
    """The ends the cutting rules allow, each way of reading their open choices."""
    stop = start + chunk_size
    # An end below this would not move the next chunk (which starts `overlap`
    # characters before the end) past this chunk's start.
    lowest = start + overlap + 1
    ends: dict[int, str] = {}
    fall_back = True
    # The last sentence mark followed by whitespace in the window.
    mark = scan.last_mark(start, stop)
    if mark is not None:
        run_end = scan.run_end(mark + 1, stop)
        # Right after the mark, after one whitespace character, after the whole run.
        readings = (mark + 1, mark + 2, run_end)
        ends.update({end: "sentence" for end in readings if end >= lowest})
        fall_back = any(end < lowest for end in readings)
    if not fall_back:
        return ends
    space = scan.last_space(start, stop)
    hard_cut = space is None
    if space is not None:
        run_start = scan.run_start(space, start)
        # Keeping the whitespace, dropping it, or dropping the whole run before the cut.
        for end in (space + 1, space, run_start):
            if end >= lowest:
                ends.setdefault(end, "word")
            else:
                hard_cut = True
    if hard_cut:
        ends.setdefault(stop, "hard")
    return ends


def check_cuts(
    pipe: Pipeline, text: str, chunks: list[str] | None = None, *, any_whitespace: bool = False
) -> list[str]:
    """chunk_text's chunks of `text` (min_chunk_size 0), checked against every cutting rule.

    The basic rules come first (lengths, then consecutive pieces); when one is
    broken, the feedback says to fix it first. `chunks`, when given, are what
    chunk_text already returned. `any_whitespace` is for checks of sentence ends
    (see `allowed_ends`).
    """
    chunks = pipe.chunk_text(text) if chunks is None else chunks
    given = pipe.given("chunk_text", text)  # after the call: it counts the calls before
    answer = answer_key(text, pipe.chunk_size, pipe.overlap, any_whitespace, chunks)
    if answer in RIGHT_ANSWERS:
        return chunks
    chunks, starts = basic_cuts(pipe, text, chunks, given)
    known = known_ends(text, pipe.chunk_size, pipe.overlap, any_whitespace)
    scan = scan_of(text)

    def ends_for(start: int) -> dict[int, str]:
        ends = known.get(start)
        if ends is None:
            ends = known[start] = allowed_ends(
                text,
                start,
                pipe.chunk_size,
                pipe.overlap,
                any_whitespace=any_whitespace,
                scan=scan,
            )
        return ends

    check_endings(text, pipe.chunk_size, chunks, starts, given, ends_for)
    RIGHT_ANSWERS.add(answer)
    return chunks


def answer_key(
    text: str, chunk_size: int, overlap: int, any_whitespace: bool, chunks: list[str]
) -> tuple:
    """What tells one answer to check_cuts from another: the call, and the chunks.

    A long text's chunks are told by two digests, of the text they hold one after
    another and of each one's length (which together give the chunks back), so a
    kept answer does not hold a hundred thousand chunks.
    """
    if len(text) < KEPT_FROM_LENGTH:
        return (text, chunk_size, overlap, any_whitespace, tuple(chunks))
    joined = hashlib.blake2b("".join(chunks).encode("utf-8", "surrogatepass")).digest()
    lengths = hashlib.blake2b(array("q", map(len, chunks)).tobytes()).digest()
    return (text, chunk_size, overlap, any_whitespace, len(chunks), joined, lengths)


class RightAnswers:
    """The answers check_cuts found right, each by its `answer_key`.

    The hidden checks cut the same fixed texts for every submission, and most
    submissions give one of a few answers: an answer found right once is right
    for every submission, so it is judged by looking it up, not by the rules
    again. A wrong answer is never kept: it is judged anew, and its feedback is
    the same. Past `most` answers, the oldest is let go.
    """

    def __init__(self, most: int) -> None:
        self.most = most
        self.kept: dict[tuple, None] = {}

    def __contains__(self, answer: tuple) -> bool:
        return answer in self.kept

    def add(self, answer: tuple) -> None:
        if len(self.kept) >= self.most:
            del self.kept[next(iter(self.kept))]
        self.kept[answer] = None


# Texts at least this long have their allowed ends kept, for the few last such texts.
KEPT_FROM_LENGTH = SCANNED_FROM_LENGTH
# Every answer of a few kinds of submissions to the hidden checks.
RIGHT_ANSWERS = RightAnswers(most=20_000)


def known_ends(
    text: str, chunk_size: int, overlap: int, any_whitespace: bool
) -> dict[int, dict[int, str]]:
    """The allowed ends by start worked out so far on a long text with these settings.

    A long document is the same text for every submission, and most answers cut it
    at the same places: each start's ends are worked out once per grading process.
    """
    if len(text) < KEPT_FROM_LENGTH:
        return {}
    return kept_ends(text, chunk_size, overlap, any_whitespace)


@lru_cache(maxsize=4)
def kept_ends(
    text: str, chunk_size: int, overlap: int, any_whitespace: bool
) -> dict[int, dict[int, str]]:
    return {}


def ends_table(
    text: str, chunk_size: int, overlap: int, *, any_whitespace: bool = False
) -> dict[int, dict[int, str]]:
    """The allowed ends for every start that some allowed chunking reaches."""
    table: dict[int, dict[int, str]] = {}
    waiting = [0]
    while waiting:
        start = waiting.pop()
        if start in table or start + chunk_size >= len(text):
            continue
        table[start] = allowed_ends(text, start, chunk_size, overlap, any_whitespace=any_whitespace)
        waiting += [end - overlap for end in table[start]]
    return dict(sorted(table.items()))
