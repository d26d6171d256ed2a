# Alternative: counts starts with itertools.count and stops them with itertools.takewhile.
from itertools import count, takewhile


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    if not words:
        return []
    starts = takewhile(lambda i: i == 0 or i + overlap < len(words), count(0, size - overlap))
    return [" ".join(words[i : i + size]) for i in starts]
