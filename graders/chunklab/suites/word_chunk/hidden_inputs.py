"""Random inputs for the hidden property checks of word_chunk, as Hypothesis strategies.

Read only when the drawn inputs are not cached yet (see `DrawnCases`).
"""

from hypothesis import strategies as st

# Random texts: words of letters, digits, punctuation and any non-space unicode,
# some long, some repeated, separated by runs of whitespace of every kind.
NON_SPACE = st.characters(codec="utf-8", exclude_categories=("Zs", "Zl", "Zp", "Cc")).filter(
    lambda c: not c.isspace()
)
WORDS = st.one_of(
    st.sampled_from(["the", "cat", "RAG", "Hello,", "end.", "état", "x"]),
    st.text(NON_SPACE, min_size=1, max_size=30),
)
# Whitespace is what str.isspace says: Unicode line breaks and spaces separate words too.
SPACES = st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028\u2029\u202f\u3000")
GAPS = st.text(SPACES, min_size=1, max_size=4)
ENDS = st.text(SPACES, max_size=3)


@st.composite
def valid_call(draw) -> tuple[str, int, int]:
    words = draw(st.lists(WORDS, max_size=16))
    text = draw(ENDS)
    for i, word in enumerate(words):
        text += word + (draw(GAPS) if i < len(words) - 1 else draw(ENDS))
    size = draw(st.integers(1, 8))
    overlap = draw(st.integers(0, size - 1))
    return text, size, overlap


def valid_calls():  # -> SearchStrategy[tuple[str, int, int]]
    return valid_call()
