"""Random inputs for the hidden property checks of chunking_pipeline, as Hypothesis strategies.

Texts built from words, long words, sentence marks and whitespace of every kind.
Read only when the drawn inputs are not cached yet (see `DrawnCases`).
"""

from hypothesis import strategies as st

WORD = st.text(alphabet="abcdeéßñ中文🙂XYZ", min_size=1, max_size=7)
LONG_WORD = st.text(alphabet="xyzé", min_size=12, max_size=40)
GAP = st.text(alphabet=" \t\n\r\u00a0\u2003", min_size=1, max_size=3)
MARK = st.sampled_from([".", "!", "?", "...", "?!", "3.14", '."', "?)", ";", ":", "Mr."])
PIECE = st.one_of(
    st.tuples(WORD, GAP).map("".join),
    st.tuples(WORD, MARK, GAP).map("".join),
    WORD,
    LONG_WORD,
    GAP,
    MARK,
)
TEXTS = st.lists(PIECE, min_size=10, max_size=30).map("".join)


@st.composite
def text_and_settings(draw: st.DrawFn) -> tuple[str, tuple[int, int]]:
    """A text and settings under which it needs several chunks."""
    text = draw(TEXTS)
    chunk_size = draw(st.integers(min_value=4, max_value=min(60, len(text) - 1)))
    return text, (chunk_size, draw(st.integers(min_value=0, max_value=chunk_size - 1)))


def texts_and_settings():  # -> SearchStrategy[tuple[str, tuple[int, int]]]
    return text_and_settings()


def texts_settings_and_least():  # -> SearchStrategy[tuple[str, tuple[int, int], int]]
    return st.tuples(text_and_settings(), st.integers(1, 40)).map(lambda p: (*p[0], p[1]))
