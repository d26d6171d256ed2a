# Mistake: yields the chunks, so the caller gets a generator instead of a list.
from collections.abc import Iterator


def chunk(text: str, size: int, overlap: int) -> Iterator[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    for start in range(0, len(text), size - overlap):
        yield text[start : start + size]
        if start + size >= len(text):
            return
