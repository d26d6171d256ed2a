"""The chunk pictures: each chunk placed where it is in the text, overlaps and gaps marked."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab.student.showing import ChunkPicture, show_chunks


def windows(text: str, size: int, overlap: int) -> list[str]:
    """Character windows, written out independently of any solution, for the pictures."""
    starts = range(0, max(len(text) - overlap, 1), size - overlap)
    return [text[i : i + size] for i in starts] if text else []


class TagBalance(HTMLParser):
    VOID = {"br", "img", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.text = ""

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text += data


def parsed_html(picture: ChunkPicture) -> TagBalance:
    parser = TagBalance()
    parser.feed(picture._repr_html_())
    parser.close()
    assert parser.open == []
    return parser


def test_character_chunks_are_placed_in_order() -> None:
    picture = show_chunks("abcdefgh", ["abc", "cde", "efg", "gh"])
    assert [(c.start, c.end) for c in picture.chunks] == [(0, 3), (2, 5), (4, 7), (6, 8)]
    assert picture.coverage == (1, 1, 2, 1, 2, 1, 2, 1)


def test_plain_text_lines_each_chunk_up_under_the_text() -> None:
    lines = str(show_chunks("abcdefgh", ["abc", "cde", "efg", "gh"])).splitlines()
    text_line = next(line for line in lines if line.startswith("text"))
    column = text_line.index("abcdefgh")
    assert lines[lines.index(text_line) + 1] == "chunk 0".ljust(column) + "abc"
    chunk_one = next(line for line in lines if line.startswith("chunk 1"))
    assert chunk_one.index("cde") == column + 2
    # The overlap marks sit under the shared characters: c (2) and e (4) for chunk 1.
    marks = lines[lines.index(chunk_one) + 1]
    assert [i - column for i, c in enumerate(marks) if c == "^"] == [2, 4]


def test_repr_and_str_are_the_same_plain_text() -> None:
    picture = show_chunks("abcdef", ["abcd", "cdef"])
    assert repr(picture) == str(picture)
    assert "2 chunks" in str(picture) and "2 characters in overlaps" in str(picture)


def test_a_repeated_chunk_is_placed_after_the_one_before() -> None:
    picture = show_chunks("aaaa", ["aa", "aa", "aa"])
    assert [c.start for c in picture.chunks] == [0, 1, 2]


def test_word_chunks_are_found_across_other_whitespace() -> None:
    text = "  the  cat\nsat on\tthe mat "
    picture = show_chunks(text, ["the cat sat", "sat on the", "the mat"])
    assert [text[c.start : c.end] for c in picture.chunks] == [
        "the  cat\nsat",
        "sat on\tthe",
        "the mat",
    ]
    plain = str(picture)
    assert "⏎" in plain and "→" in plain  # a line break and a tab stay one column each


def test_pipeline_chunks_are_placed_by_char_start() -> None:
    body = "ab ab ab"
    chunks = [{"text": "ab", "char_start": 3}, {"text": "ab", "char_start": 6}]
    assert [c.start for c in show_chunks(body, chunks).chunks] == [3, 6]


def test_a_wrong_char_start_is_reported_not_guessed() -> None:
    picture = show_chunks("hello world", [{"text": "world", "char_start": 0}])
    assert picture.chunks[0].start is None
    assert "char_start 0" in picture.chunks[0].note
    assert "char_start 0" in str(picture) and "char_start 0" in picture._repr_html_()


def test_a_chunk_not_in_the_text_is_shown_as_such() -> None:
    picture = show_chunks("hello", ["hello", "xyz"])
    assert picture.chunks[1].start is None
    assert "not found in the text" in str(picture)
    assert "1 not found" in picture.summary()


def test_gaps_are_counted_and_drawn() -> None:
    picture = show_chunks("abcdefgh", ["abc", "fgh"])
    assert picture.coverage.count(0) == 2
    assert "2 in no chunk" in picture.summary()
    assert "in no chunk" in picture._repr_html_()


def test_starts_must_match_the_chunks() -> None:
    with pytest.raises(ValueError, match="2 starts"):
        show_chunks("abc", ["a"], starts=[0, 1])


def test_html_is_balanced_and_escapes_the_text() -> None:
    text = "<script>alert(1)</script> & more"
    parser = parsed_html(show_chunks(text, [text[:20], text[15:]]))
    assert "<script>" in parser.text  # shown as text, never as a tag
    assert "script" not in parser.open


def test_long_texts_are_listed_with_overlaps_in_brackets() -> None:
    text = "word " * 100
    chunks = windows(text, 120, 20)
    plain = str(show_chunks(text, chunks))
    assert "chunk 0  text[0:120]" in plain
    assert "⟦" in plain and "⟧" in plain
    html = show_chunks(text, chunks)._repr_html_()
    assert "…" in html  # long texts show each chunk with some context, not the whole text


def test_an_empty_picture_is_still_drawn() -> None:
    assert "0 chunks" in str(show_chunks("", []))
    parsed_html(show_chunks("", []))


@settings(max_examples=60, deadline=None, database=None)
@given(
    text=st.text(st.sampled_from("ab \n\tc.é"), max_size=120),
    size=st.integers(1, 12),
    data=st.data(),
)
def test_windows_cover_the_text_with_overlaps_where_they_share(text, size, data) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = windows(text, size, overlap)
    picture = show_chunks(text, chunks, starts=[i * (size - overlap) for i in range(len(chunks))])
    assert all(count >= 1 for count in picture.coverage)
    pairs = zip(picture.chunks, picture.chunks[1:], strict=False)
    shared = sum(max(0, a.end - b.start) for a, b in pairs)
    assert sum(1 for count in picture.coverage if count > 1) <= shared
    assert len(str(picture).splitlines()) >= len(chunks) + 1
    parsed_html(picture)


def test_gaps_are_named_in_the_list_of_a_long_text() -> None:
    text = "x" * 200
    picture = show_chunks(text, [text[:50], text[60:120]], starts=[0, 60])
    assert picture.gaps() == ((50, 60), (120, 200))
    assert "in no chunk: text[50:60], text[120:200]" in str(picture)
