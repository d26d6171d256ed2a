"""An input a student can try, offered with a hidden check's failure.

A hidden check's own input is kept from the student under the default
hidden-feedback policy (`rule`): it is fixed, so it could be collected over
resubmissions. When such a check fails, it tries a fixed list of small inputs
that are never hidden ones (public inputs of the lesson, and made-up ones),
through the same submission calls, with the same check, once the submission's
tests are done, on answers asked before any hidden check (each hidden test
module's `TRIED` names its lists; see `suite_run/tried_answers.py`); the first
one that breaks the rule for this submission is offered on a line of its own:

    Try: chunk('try this', 3, 2)
    Expected: [...]
    Got: [...]

The policy module keeps its first line alone under `rule` (the input: the
kit's text, never what the code answered) and drops the rest; under `none`
nothing is shown. The candidates are fixed data, so the
same submission is offered the same input on every run; a kit test checks
that none of them is an input of a hidden check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from chunklab.contract import NOT_THE_SUBMISSIONS_ANSWER
from chunklab.suites.checks import TRY_PREFIX, RuleBroken, send_ahead

# At most this many candidates are tried for one failure: each one is a call.
MOST_TRIES = 40

T = TypeVar("T")


@contextmanager
def offering(find: Callable[[], str]) -> Iterator[None]:
    """A hidden check's body; when it fails, `find()` (see `first_failing`) may add a try.

    The search runs once the submission's tests are all done (the grading plugin's
    `try_offers`), on the answers the submission gave before any hidden check: which
    input it finds could otherwise be chosen by code that kept the hidden inputs it
    was given.
    """
    try:
        yield
    except RuleBroken as broken:
        broken.offer = find
        raise


def first_failing(cases: Iterable[T], check: Callable[[T], Any]) -> str:
    """The feedback of the first case `check` fails on, as a try; "" when none fails.

    A case that only breaks a basic rule another one builds on shows another rule,
    so it is passed over. A call that times out or ends the worker stops the search.
    """
    for k, case in enumerate(cases):
        if k >= MOST_TRIES:
            break
        try:
            check(case)
        except RuleBroken as shown:
            if shown.builds_on:
                continue
            return TRY_PREFIX + str(shown).removeprefix("Input: ")
        except NOT_THE_SUBMISSIONS_ANSWER:
            return ""
    return ""


@dataclass(frozen=True)
class TriedCalls:
    """Inputs to try that are calls of one function: `name(*args)` for each of `calls`."""

    name: str
    calls: tuple[tuple, ...]

    def make_every_call(self, submission: Any) -> None:
        """Every call a search of these inputs may make (see `suite_run/tried_answers.py`)."""
        fn = getattr(submission, self.name)
        for args in send_ahead(submission, self.name, self.calls):
            try:
                fn(*args)
            except Exception:  # an answer to note, not to judge
                pass


def settings_grid(texts: Iterable[str], largest: int = 5) -> list[tuple[str, int, int]]:
    """Every (text, size, overlap) with 1 <= size <= largest and 0 <= overlap < size,
    smallest first."""
    calls = [
        (text, size, overlap)
        for text in texts
        for size in range(1, largest + 1)
        for overlap in range(size)
    ]
    return sorted(calls, key=lambda call: (len(call[0]), call[1], call[2]))


# --- char_chunk ---------------------------------------------------------------------

# The lesson's public inputs: the visible checks' valid calls and the worked example,
# but those a hidden check uses too.
CHAR_PUBLIC = [
    ("abcdefgh", 4, 1),
    ("abcdefghi", 3, 0),
    ("abcdefg", 3, 1),
    ("hello world", 4, 0),
    ("", 4, 1),
    ("hello", 10, 2),
    ("hello", 5, 4),
    ("The warranty covers repairs for two years. Batteries: one year.", 24, 8),
]
# Made-up texts: plain letters, and every kind of character the lesson says counts as it is.
CHAR_TEXTS = ("try", "try this", "0123456789ab", "t\tr\r\ny\rz\x85 w", "e\u0301\u3000\ufb01\u200bz")
# Whitespace at a text's ends counts as any character does (code that strips it fails).
CHAR_ENDS = [("  try  ", 3, 1), ("  try  ", 8, 3), ("\ttry this\n", 4, 2)]
CHAR_CALLS = CHAR_PUBLIC + CHAR_ENDS + settings_grid(CHAR_TEXTS)
# Invalid settings, on public texts and made-up ones.
CHAR_INVALID = [
    ("abcdef", 0, 0),
    ("abcdef", -2, 0),
    ("abcdef", 3, -1),
    ("abcdef", 3, 3),
    ("abcdef", 3, 5),
    *(
        (text, size, overlap)
        for text in ("", "t", "try this")
        for size, overlap in ((0, 2), (-3, 0), (2, -2), (2, 2), (4, 6), (6, -1), (9, 9))
    ),
]


# --- word_chunk ---------------------------------------------------------------------

WORD_PUBLIC = [
    ("the cat sat on the red mat", 4, 2),
    ("a b c d e", 3, 1),
    ("a b c d e", 2, 0),
    ("  ", 2, 0),
    ("", 3, 1),
    ("a\tb\nc d", 2, 1),
]
WORD_TEXTS = (
    "try",
    "try it",
    "try this now",
    "one two three four five",
    " try\tit \n now ",
    "Try, it! Now\u2028or\xa0never",
    "go go go go go",
    " \t ",
    "\n\n",
)
WORD_CALLS = WORD_PUBLIC + settings_grid(WORD_TEXTS)


def word_count(text: str) -> int:
    return len(text.split())
