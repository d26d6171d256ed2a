# Mistake: each window taken with islice walks from the first word again, so long texts take ages.
from itertools import islice


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(islice(words, start, start + size)))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
