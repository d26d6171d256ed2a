"""Inputs to try for the hidden checks of chunking_pipeline (see `suites/tries.py`).

Each list holds small inputs: pipeline settings with short texts or documents,
taken from the public checks' inputs (pieces of their texts, their settings) or
made up, never an input of a hidden check (a kit test checks it). A hidden check
that fails tries the inputs of its list that bear on its rule, through the same
submission calls and the same judging, and offers the first one that breaks the
rule for this submission:

    Try: ChunkingPipeline(chunk_size=8, overlap=2, min_chunk_size=0).chunk_text('Go on. Stop!')

followed by what was expected (the chunks, where the rules leave one answer, or
where a chunk may end) and what came back. The lists are fixed data, and which
inputs bear on a rule is worked out from them alone, so a submission is offered
the same input on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from chunklab.suites.chunking_pipeline.hidden_cutting import ends_table
from chunklab.suites.chunking_pipeline.test_visible import STORY, WORDS
from chunklab.suites.tries import MOST_TRIES, first_failing, offering

# A text and the pipeline's chunk_size and overlap (min_chunk_size 0).
Cut = tuple[str, int, int]


@dataclass(frozen=True)
class Tries:
    """Inputs to try, and how a hidden check judges one of them for a submission.

    `check(submission, case)` raises `RuleBroken` when the submission breaks the
    rule on `case`; `ahead(later, case)`, when given, notes the calls it makes, so
    that those of all the cases tried go to the submission together.
    """

    cases: tuple[Any, ...]
    check: Callable[[Any, Any], object]
    ahead: Callable[[Any, Any], object] | None = None

    def offered(
        self, submission: Any, keep: Callable[[Any], bool] = lambda case: True
    ) -> AbstractContextManager[None]:
        """A hidden check's body; when it fails, the first case `keep` allows that the
        submission fails too is offered to try."""

        def find() -> str:
            cases = [case for case in self.cases if keep(case)][:MOST_TRIES]
            if self.ahead is not None:
                with submission.ahead() as later:
                    for case in cases:
                        self.ahead(later, case)
            return first_failing(cases, lambda case: self.check(submission, case))

        return offering(find)

    def make_every_call(self, submission: Any) -> None:
        """Every call a search of these inputs may make (see `suite_run/tried_answers.py`):
        the calls `ahead` notes, else the check's on each case, its judgment left aside."""
        if self.ahead is not None:
            with submission.ahead() as later:
                for case in self.cases:
                    self.ahead(later, case)
            return
        for case in self.cases:
            try:
                self.check(submission, case)
            except Exception:  # an answer to note, not to judge
                pass


# --- Texts and settings for the cutting rules -----------------------------------------

# Pieces of the public checks' texts, at public settings and small ones.
FIRST_SENTENCES = STORY[:57]  # "The cat sat on the mat. It purred! Did it sleep? Not yet."
FIRST_WORDS = WORDS[:43]  # "the quick brown fox jumps over the lazy dog"
PUBLIC_CUTS: list[Cut] = [
    ("One sentence. Then another.", 14, 3),
    ("Forty characters. Exactly that many! Ok.", 22, 6),
    (FIRST_SENTENCES, 20, 5),
    (FIRST_SENTENCES, 16, 0),
    (FIRST_SENTENCES, 25, 8),
    (FIRST_WORDS, 12, 3),
    (FIRST_WORDS, 20, 5),
    (FIRST_WORDS, 16, 0),
    ("internationalization characterization responsibilities overwhelmingly", 25, 5),
    ("abcdefghijklmnopqrstuvwxyz" * 3, 30, 5),
]
# Made-up texts, each short: sentence ends with each mark and each kind of whitespace,
# marks that end no sentence, runs of whitespace, long words, invisible characters.
MADE_UP_TEXTS = (
    "Go on. Stop! Why? Fine.",
    "ab. cd ef. gh ij",
    "no marks here just words",
    "a\tb\nc\u00a0d\u2003e f",
    "Ok.\tYes!\nNo?\u00a0Fine.",
    "Pi is 3.14 and e is 2.71 ok",
    "Yes.   \t\nNo way.  Maybe.",
    "one\x1ctwo\x85three\u2028four",
    'He said "no." Then (he left.) Ok; fine: bye. End',
    "Wait\u2026 and go on\u3002 then. Ok",
    "abcdefghijklmnopqrst uvw",
    "abcdefghijklmnopqrstuvwxyz",
    "\ufeffHi. A zero\u200bwidth! Cafe\u0301.",
    # A real sentence end, then marks that end none: each would be the last if it counted.
    "Hi. Mr. Li ran off",
    "Go. A; b: c d e f",
    'Go. A." b) c d e',
    "Go. A\u2026 b\u3002 c\uff01 d e",
    # ! and ?, and whitespace other than a space after a mark, with whitespace after them.
    "Ok! Go on? Yes now",
    "Hi.\tGo on\nnow ok",
    # A sentence mark as a window's first character.
    "abcdefgh. ijk lmnop",
)
# The settings most texts need several chunks with come first: a check tries the first
# few cases that bear on its rule, so each text is met early at some settings.
MADE_UP_SETTINGS = ((8, 0), (6, 2), (12, 4), (9, 3), (5, 1))
CUTS: tuple[Cut, ...] = (
    *(
        (text, chunk_size, overlap)
        for chunk_size, overlap in MADE_UP_SETTINGS
        for text in sorted(MADE_UP_TEXTS, key=len)
    ),
    *PUBLIC_CUTS,
)
# Settings just inside the limits, on made-up texts and a public piece.
EDGE_CUTS: tuple[Cut, ...] = tuple(
    (text, chunk_size, overlap)
    for text in ("abcd", "a b. cd", "Go on. Stop!", FIRST_WORDS[:19])
    for chunk_size, overlap in ((1, 0), (2, 1), (4, 3), (7, 6))
)


@lru_cache(maxsize=512)
def rule_kinds(case: Cut) -> frozenset[str]:
    """The rules that place some chunk's end in some chunking the rules allow of `case`."""
    text, chunk_size, overlap = case
    table = ends_table(text, chunk_size, overlap)
    return frozenset(kind for ends in table.values() for kind in ends.values())


def several_chunks(case: Cut) -> bool:
    return len(case[0]) > case[1]


def ends_by(*kinds: str) -> Callable[[Cut], bool]:
    """Keeps the cases where one of these rules places a chunk's end."""
    return lambda case: bool(rule_kinds(case) & set(kinds))


@lru_cache(maxsize=512)
def only_chunking(case: Cut) -> tuple[str, ...] | None:
    """The chunks of `case` when the rules leave one answer; None when they leave several."""
    text, chunk_size, overlap = case
    table = ends_table(text, chunk_size, overlap)
    if any(len(ends) != 1 for ends in table.values()):
        return None
    chunks, start = [], 0
    while text and start + chunk_size < len(text):
        (end,) = table[start]
        chunks.append(text[start:end])
        start = end - overlap
    return (*chunks, text[start:]) if text else ()


def one_answer(case: Cut) -> bool:
    return only_chunking(case) is not None


def only_cuts(case: Cut) -> list[tuple[int, int]]:
    """Where each chunk of `case` starts and ends, when the rules leave one answer."""
    chunks = only_chunking(case) or ()
    cuts, start = [], 0
    for chunk in chunks:
        cuts.append((start, start + len(chunk)))
        start += len(chunk) - case[2]
    return cuts


# Texts whose last window, reached after hard cuts, holds sentence ends.
REACHING_THE_END: tuple[Cut, ...] = (
    ("abcdefghOk. No.", 8, 1),
    ("0123456789Hi! Go? Ok.", 11, 0),
    ("abcdefghijk. Yes. No!", 12, 2),
)


# --- Texts that fit in one window, and empty texts ---------------------------------------

FITS: tuple[Cut, ...] = (
    ("x.", 2, 1),
    ("Go on. Stop!", 12, 3),
    (" \n\t", 4, 0),
    ("Ok. Yes. No.", 20, 19),
    ("One sentence. Then another.", 27, 0),
    ("Forty characters. Exactly that many! Ok.", 41, 12),
)
EMPTY_SETTINGS: tuple[dict[str, int], ...] = (
    {"chunk_size": 40, "overlap": 10, "min_chunk_size": 0},
    {"chunk_size": 2, "overlap": 1},
    {"chunk_size": 3, "overlap": 0, "min_chunk_size": 5},
    {"chunk_size": 600},
)


# --- Settings ---------------------------------------------------------------------------

# Invalid settings, each with the rule it breaks.
INVALID_SETTINGS: tuple[tuple[str, dict[str, int]], ...] = (
    ("size", {"chunk_size": 0}),
    ("size", {"chunk_size": -5, "overlap": 0}),
    ("size", {"chunk_size": 0, "overlap": 0, "min_chunk_size": 0}),
    ("size", {"chunk_size": -2, "overlap": 1, "min_chunk_size": 1}),
    ("negative", {"chunk_size": 50, "overlap": -1}),
    ("negative", {"chunk_size": 50, "overlap": 5, "min_chunk_size": -1}),
    ("negative", {"chunk_size": 4, "overlap": -2, "min_chunk_size": 0}),
    ("negative", {"overlap": -3}),
    ("negative", {"min_chunk_size": -7}),
    ("too large", {"chunk_size": 20, "overlap": 20}),
    ("too large", {"chunk_size": 20, "overlap": 35}),
    ("too large", {"chunk_size": 2, "overlap": 2, "min_chunk_size": 0}),
    ("too large", {"chunk_size": 3, "overlap": 8}),
    ("too large", {"chunk_size": 40}),
)
# Settings given by position (those left out at their defaults), with a text.
POSITIONAL: tuple[tuple[tuple[int, ...], str], ...] = (
    ((9, 2, 3), "abcdefghijklmnopqrstuvwxyz"),
    ((6, 1, 2), "one two three four"),
    ((15, 4, 0), "Go on. Stop! Why? Fine. Ok."),
    ((20, 5, 6), FIRST_SENTENCES),
    ((), "z" * 520),
    ((), "y" * 100),
    ((150, 20), "w" * 330),
)


# --- Documents --------------------------------------------------------------------------


def document(body: Any, doc_id: Any = "try", **more: Any) -> dict[str, Any]:
    return {"id": doc_id, "title": "T", "body": body, **more}


# A body, chunk_size, overlap and min_chunk_size: bodies of repeated text first.
DOCUMENT_CUTS: tuple[tuple[str, int, int, int], ...] = (
    ("Ha. " * 8, 10, 3, 0),
    ("la la la la la la", 6, 2, 0),
    ("Go. Go on. " * 4, 9, 2, 5),
    ("Ok. Yes. " * 5, 8, 1, 0),
    ("ab. ab. ab. ab. ab.", 7, 2, 4),
    ("Go on. Stop! Why? Fine.", 9, 3, 6),
    ("Ha. Hi. " * 6, 10, 2, 6),
    ("Go. No. " * 6, 9, 1, 8),
    (FIRST_SENTENCES, 20, 5, 12),
    (FIRST_WORDS, 12, 3, 9),
)
# A body where some chunk is shorter than others, its settings and another least length.
SHORT_DROPS: tuple[tuple[str, int, int, int], ...] = (
    ("Hi. Go on now. Ok. Then more.", 12, 2, 6),
    ("Ab. Cdefgh ij. Kl. Mnop qr.", 10, 1, 5),
    (FIRST_SENTENCES, 20, 5, 14),
)
METADATA: tuple[tuple[dict[str, Any], Any], ...] = (
    (document("Go on. Stop! Why? Fine.", metadata={"k": 1}), {"k": 1}),
    (document("Go on. Stop! Why? Fine."), {}),
    (document("Go on. Stop! Why? Fine.", metadata=None), {}),
    (
        document(FIRST_WORDS[:19], metadata={"t": ["a"], "n": None}),
        {"t": ["a"], "n": None},
    ),
    (document(FIRST_WORDS[:19], metadata={}), {}),
)
# Documents of a batch, each with several chunks at the batch checks' settings.
INDEX_BATCHES: tuple[tuple[dict[str, Any], ...], ...] = (
    (document("Go. Ok. No.", "a"), document("Yes. No. Hi.", "b")),
    (document("Go. Stop!", "b", metadata={"k": 1}), document(FIRST_WORDS[:9], "w")),
)
BATCH_SETTINGS = (8, 1)
BATCHES: tuple[tuple[dict[str, Any], ...], ...] = (
    *INDEX_BATCHES,
    (document("Go. Ok. No.", "a"), document("Go. Ok. No.", "a")),
    (document("", "c"), document("Go on. Stop!", "d")),
    (document(None, "n"), document("Ok. Yes. No.", "x", metadata={"k": 1})),
)
# Bodies with no whitespace: the rules leave one answer, so the chunk dicts are known.
PLAIN_BODIES: tuple[tuple[dict[str, Any], int, int], ...] = (
    (document("abcdefghijklmnop", metadata={"k": 1}), 6, 2),
    (document("abcdefghijklmnopqrstuvwxyz", "doc", metadata={"source": "abc"}), 20, 5),
    (document("0123456789", 7), 4, 1),
    (document("abcdefghij", "x", metadata=None), 5, 0),
)
NO_BODIES: tuple[dict[str, Any], ...] = (
    {"id": "t", "title": "T"},
    {"id": "t", "title": "T", "body": None},
    {"id": "t", "title": "T", "body": ""},
    {"id": 3, "title": "", "metadata": {"k": 1}},
    {"id": "t", "title": "T", "body": None, "metadata": None},
)
BLANK_BODIES: tuple[str, ...] = (" ", "\n\t ", " \t" * 5, "\n" * 9, " \n" * 6)
IDS: tuple[Any, ...] = (3, 12, -1, 2.5)
INVISIBLE_CUTS: tuple[Cut, ...] = tuple(
    (text, chunk_size, overlap)
    for text in (
        "\ufeffHi. A zero\u200bwidth! Cafe\u0301.",
        "Cafe\u0301 noir. Cre\u0300me.",
        "a\u200bb\ufeffc d\u00ade.",
    )
    for chunk_size, overlap in ((8, 2), (12, 0))
)
