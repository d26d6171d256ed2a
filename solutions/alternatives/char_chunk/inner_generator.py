# Alternative: a nested generator yields the windows and the function returns them as a list.
from collections.abc import Iterator


def chunk(text: str, size: int, overlap: int) -> list[str]:
    # Checked here, outside the generator, so the error comes at once.
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be 1 or more and overlap between 0 and size - 1")

    def windows() -> Iterator[str]:
        start = 0
        while start < len(text):
            yield text[start : start + size]
            if start + size >= len(text):
                return
            start += size - overlap

    return list(windows())
