"""Random inputs for the hidden property checks of char_chunk, as Hypothesis strategies.

Read only when the drawn inputs are not cached yet (see `DrawnCases`).
"""

from hypothesis import strategies as st

# Random texts for the property checks: whitespace of every kind (tabs, \r\n, a lone
# \r, Unicode line and paragraph separators, wide spaces), text that normalisation
# would change, and any unicode character.
WHITESPACE = st.sampled_from([" ", "\t", "\n", "\r", "\r\n", "\x85", "\u2028", "\u3000", "\xa0"])
# Pieces that Unicode normalisation (NFC, NFD, NFKC) would change: a letter and its
# combining accent, ligatures, full-width and compatibility forms, Korean jamo.
UNNORMALISED = st.sampled_from(
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
CHARACTERS = st.one_of(WHITESPACE, UNNORMALISED, st.characters(codec="utf-8"))
TEXTS = st.lists(CHARACTERS, max_size=60).map("".join)


@st.composite
def valid_call(draw) -> tuple[str, int, int]:
    size = draw(st.integers(1, 12))
    overlap = draw(st.integers(0, size - 1))
    return draw(TEXTS), size, overlap


@st.composite
def invalid_call(draw) -> tuple[str, int, int]:
    text = draw(st.lists(CHARACTERS, min_size=1, max_size=20).map("".join))
    size = draw(st.integers(-5, 10))
    if size <= 0:
        overlap = draw(st.integers(-3, 5))
    else:
        overlap = draw(st.one_of(st.integers(-5, -1), st.integers(size, size + 5)))
    return text, size, overlap


def valid_calls():  # -> SearchStrategy[tuple[str, int, int]]
    return valid_call()


def invalid_calls():  # -> SearchStrategy[tuple[str, int, int]]
    return invalid_call()
