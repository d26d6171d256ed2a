"""Random inputs for the hidden property checks of char_chunk, as Hypothesis strategies.

The inputs are drawn once, by `python -m chunklab.authoring.build_hidden_inputs`,
into `hidden_inputs.json` beside this file: grading reads that file and never
imports this module or Hypothesis. `DRAWS` names each set of inputs, its
strategy and how many inputs it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


def characters() -> SearchStrategy[str]:
    """Single characters, or the few that make one: the alphabet of the random texts."""
    from hypothesis import strategies as st

    # Whitespace of every kind (tabs, \r\n, a lone \r, Unicode line and paragraph
    # separators, wide spaces), text that normalisation would change, invisible
    # characters, and any unicode character.
    whitespace = st.sampled_from(
        [" ", "\t", "\n", "\r", "\r\n", "\x85", "\u2028", "\u3000", "\xa0"]
    )
    # Pieces that Unicode normalisation (NFC, NFD, NFKC) would change: a letter and its
    # combining accent, ligatures, full-width and compatibility forms, Korean jamo.
    unnormalised = st.sampled_from(
        [
            "e\u0301",
            "o\u0308",
            "\ufb01",
            "\ufb02",
            "\uff21",
            "\uff41",
            "\u212b",
            "\u2126",
            "\u1100\u1161",
            "\u2460",
            "\u00e9",
        ]
    )
    # Invisible characters that code cleaning up a text would remove: a byte order mark,
    # zero-width spaces and joiners, a soft hyphen, a word joiner.
    invisible = st.sampled_from(["\ufeff", "\u200b", "\u200c", "\u200d", "\u00ad", "\u2060"])
    return st.one_of(whitespace, unnormalised, invisible, st.characters(codec="utf-8"))


def valid_calls() -> SearchStrategy[tuple[str, int, int]]:
    from hypothesis import strategies as st

    texts = st.lists(characters(), max_size=60).map("".join)

    @st.composite
    def valid_call(draw: st.DrawFn) -> tuple[str, int, int]:
        size = draw(st.integers(1, 12))
        overlap = draw(st.integers(0, size - 1))
        return draw(texts), size, overlap

    return valid_call()


def invalid_calls() -> SearchStrategy[tuple[str, int, int]]:
    from hypothesis import strategies as st

    texts = st.lists(characters(), min_size=1, max_size=20).map("".join)

    @st.composite
    def invalid_call(draw: st.DrawFn) -> tuple[str, int, int]:
        text = draw(texts)
        size = draw(st.integers(-5, 10))
        if size <= 0:
            overlap = draw(st.integers(-3, 5))
        else:
            overlap = draw(st.one_of(st.integers(-5, -1), st.integers(size, size + 5)))
        return text, size, overlap

    return invalid_call()


DRAWS = {"valid_calls": (valid_calls, 30), "invalid_calls": (invalid_calls, 24)}
