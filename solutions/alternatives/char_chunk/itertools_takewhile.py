# Alternative: counts starts with itertools.count and stops them with itertools.takewhile.
from itertools import count, takewhile


def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be 1 or more and overlap between 0 and size - 1")
    if not text:
        return []
    # The first start is always used; a later one only if the window before it
    # (which began step characters earlier) had not reached the end.
    starts = takewhile(lambda i: i == 0 or i + overlap < len(text), count(0, size - overlap))
    return [text[i : i + size] for i in starts]
