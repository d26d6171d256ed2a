# Alternative: lists every chunk start with one range(), in a single list comprehension.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    if not words:
        return []
    # A chunk after the first is needed only while the one before it had not reached
    # the last word: start + overlap < len(words). The first chunk is always needed.
    starts = range(0, max(len(words) - overlap, 1), size - overlap)
    return [" ".join(words[start : start + size]) for start in starts]
