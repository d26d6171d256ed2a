"""Random inputs for the hidden property checks of word_chunk, as Hypothesis strategies.

The inputs are drawn once, by `python -m chunklab.authoring.build_hidden_inputs`,
into `hidden_inputs.json` beside this file: grading reads that file and never
imports this module or Hypothesis. `DRAWS` names each set of inputs, its
strategy and how many inputs it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


def valid_calls() -> SearchStrategy[tuple[str, int, int]]:
    from hypothesis import strategies as st

    # Random texts: words of letters, digits, punctuation and any non-space unicode,
    # some long, some repeated, separated by runs of whitespace of every kind.
    non_space = st.characters(codec="utf-8", exclude_categories=("Zs", "Zl", "Zp", "Cc")).filter(
        lambda c: not c.isspace()
    )
    words = st.one_of(
        st.sampled_from(["the", "cat", "RAG", "Hello,", "end.", "état", "x"]),
        # Words that cleaning up or a wider idea of a separator would change: hyphens,
        # dashes and slashes, a combining accent, invisible characters that are not space.
        st.sampled_from(
            ["well-known", "and/or", "a\u2014b", "Cafe\u0301", "zero\u200bwidth", "\ufeffbom"]
        ),
        st.text(non_space, min_size=1, max_size=30),
    )
    # Whitespace is what str.isspace says: Unicode line breaks and spaces separate words too.
    spaces = st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028\u2029\u202f\u3000")
    gaps = st.text(spaces, min_size=1, max_size=4)
    ends = st.text(spaces, max_size=3)

    @st.composite
    def valid_call(draw: st.DrawFn) -> tuple[str, int, int]:
        chosen = draw(st.lists(words, max_size=16))
        text = draw(ends)
        for i, word in enumerate(chosen):
            text += word + (draw(gaps) if i < len(chosen) - 1 else draw(ends))
        size = draw(st.integers(1, 8))
        overlap = draw(st.integers(0, size - 1))
        return text, size, overlap

    return valid_call()


DRAWS = {"valid_calls": (valid_calls, 30)}
