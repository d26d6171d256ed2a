# Mistake: yields the chunks, so the caller gets a generator instead of a list.
from collections.abc import Iterator


def solve(text: str, size: int, overlap: int) -> Iterator[str]:
    words = text.split()
    for start in range(0, len(words), size - overlap):
        yield " ".join(words[start : start + size])
        if start + size >= len(words):
            return
