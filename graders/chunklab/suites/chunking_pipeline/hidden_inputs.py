"""Random inputs for the hidden property checks of chunking_pipeline, as Hypothesis strategies.

Texts built from words, long words, sentence marks and whitespace of every kind.
The inputs are drawn once, by `python -m chunklab.authoring.build_hidden_inputs`,
into `hidden_inputs.json` beside this file: grading reads that file and never
imports this module or Hypothesis. `DRAWS` names each set of inputs, its
strategy and how many inputs it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


def text_and_settings() -> SearchStrategy[tuple[str, tuple[int, int]]]:
    """A text and settings under which it needs several chunks."""
    from hypothesis import strategies as st

    word = st.text(alphabet="abcdeéßñ中文🙂XYZ", min_size=1, max_size=7)
    long_word = st.text(alphabet="xyzé", min_size=12, max_size=40)
    gap = st.text(alphabet=" \t\n\r\u00a0\u2003", min_size=1, max_size=3)
    mark = st.sampled_from([".", "!", "?", "...", "?!", "3.14", '."', "?)", ";", ":", "Mr."])
    piece = st.one_of(
        st.tuples(word, gap).map("".join),
        st.tuples(word, mark, gap).map("".join),
        word,
        long_word,
        gap,
        mark,
    )
    texts = st.lists(piece, min_size=10, max_size=30).map("".join)

    @st.composite
    def drawn(draw: st.DrawFn) -> tuple[str, tuple[int, int]]:
        text = draw(texts)
        chunk_size = draw(st.integers(min_value=4, max_value=min(60, len(text) - 1)))
        return text, (chunk_size, draw(st.integers(min_value=0, max_value=chunk_size - 1)))

    return drawn()


def texts_and_settings() -> SearchStrategy[tuple[str, tuple[int, int]]]:
    return text_and_settings()


def texts_settings_and_least() -> SearchStrategy[tuple[str, tuple[int, int], int]]:
    from hypothesis import strategies as st

    return st.tuples(text_and_settings(), st.integers(1, 40)).map(lambda p: (*p[0], p[1]))


DRAWS = {
    "texts_and_settings": (texts_and_settings, 24),
    "texts_settings_and_least": (texts_settings_and_least, 16),
}
