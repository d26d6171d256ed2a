# Alternative: keeps the words not yet passed in a deque and drops size - overlap from the front.
from collections import deque
from itertools import islice


def solve(text: str, size: int, overlap: int) -> list[str]:
    remaining = deque(text.split())
    chunks = []
    while remaining:
        chunks.append(" ".join(islice(remaining, size)))
        if len(remaining) <= size:
            break  # that chunk held the last word
        for _ in range(size - overlap):
            remaining.popleft()
    return chunks
