"""The rule checkers of char_chunk and word_chunk: the stated rules leave one answer per input.

Each answer is worked out here from the lesson's rules, written apart from the
reference: how many windows a text takes, and what each one holds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from chunklab.mutation.calls import RAN_TOO_LONG, Answer, Case, answer_of
from chunklab.suites.checks import same_value, shorten

TERMINATES = "Every call finishes: chunking moves forward at every step."


def window_count(length: int, size: int, step: int) -> int:
    """Windows of `size` moving by `step` until one reaches the end: none for nothing."""
    if length == 0:
        return 0
    return 1 + max(0, -(-(length - size) // step))


def char_windows(text: str, size: int, overlap: int) -> list[str]:
    step = size - overlap
    return [text[k * step : k * step + size] for k in range(window_count(len(text), size, step))]


def words_of(text: str) -> list[str]:
    """The runs of characters that are not whitespace (str.isspace), in order."""
    runs = itertools.groupby(text, key=str.isspace)
    return ["".join(chars) for space, chars in runs if not space]


def word_windows(text: str, size: int, overlap: int) -> list[str]:
    words, step = words_of(text), size - overlap
    count = window_count(len(words), size, step)
    return [" ".join(words[k * step : k * step + size]) for k in range(count)]


class CharChunkRules:
    """chunk(text, size, overlap): bad settings raise ValueError, else exactly the windows."""

    name = "chunk"
    RAISES = "size <= 0, overlap < 0 or overlap >= size raise ValueError."
    WINDOWS = (
        "The chunks are text[i:i + size] for i = 0, size - overlap, ..., stopping at the first "
        "window that reaches the end of the text; an empty text gives []."
    )

    def cases(self, hidden: list[tuple]) -> Iterator[Case]:
        texts = ["abcdefghij"[:n] for n in range(11)] + ["a b\tc\u00a0d\ne", "\u00e9\u200bx y"]
        for text in texts:
            for size, overlap in itertools.product(range(-2, 8), range(-2, 8)):
                yield self.case((text, size, overlap))
        for text, size, overlap in hidden:
            yield self.case((text, size, overlap))

    def case(self, args: tuple) -> Case:
        return Case(f"{self.name}({', '.join(shorten(a, 80) for a in args)})", args)

    def answer(self, code: ModuleType, case: Case) -> Answer:
        return answer_of(getattr(code, self.name), *case.data)

    def broken(self, case: Case, answer: Answer) -> str | None:
        if answer.outcome == RAN_TOO_LONG:
            return TERMINATES
        text, size, overlap = case.data
        if size <= 0 or overlap < 0 or overlap >= size:
            return (
                None
                if answer.outcome == "raised" and answer.value == "ValueError"
                else (self.RAISES)
            )
        return exactly(answer, char_windows(text, size, overlap), self.WINDOWS)


class WordChunkRules(CharChunkRules):
    """solve(text, size, overlap) on the inputs the lesson allows: exactly the word windows."""

    name = "solve"
    WINDOWS = (
        "Words are the runs of non-whitespace characters; a chunk is size consecutive words "
        "joined by single spaces, the next one size - overlap words later, stopping once a "
        "chunk holds the last word; a text without words gives []."
    )

    def cases(self, hidden: list[tuple]) -> Iterator[Case]:
        settings = [(size, overlap) for size in range(1, 5) for overlap in range(size)]
        for length in range(7):
            for letters in itertools.product("ab \t\u00a0", repeat=length):
                for size, overlap in settings:
                    yield self.case(("".join(letters), size, overlap))
        for text, size, overlap in hidden:
            yield self.case((text, size, overlap))

    def broken(self, case: Case, answer: Answer) -> str | None:
        if answer.outcome == RAN_TOO_LONG:
            return TERMINATES
        return exactly(answer, word_windows(*case.data), self.WINDOWS)


def exactly(answer: Answer, wanted: list[str], rule: str) -> str | None:
    """None when the answer is `wanted` (a list of str, exactly), else the rule it breaks."""
    value: Any = answer.value
    if answer.outcome == "returned" and same_value(value, wanted):
        return None
    return f"{rule} Expected {shorten(wanted, 200)}."
