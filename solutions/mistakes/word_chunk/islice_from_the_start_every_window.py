# Mistake: takes each window with islice, which walks from the first word every time, so a long text takes ages.
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
