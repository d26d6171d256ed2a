def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got {size=} {overlap=}")
    if not text:
        return []
    # A window after the first is needed only while the one before it had not reached
    # the end: start - step + size < len(text), that is start + overlap < len(text).
    # The first window (start 0) is always needed, hence the max(..., 1).
    starts = range(0, max(len(text) - overlap, 1), size - overlap)
    return [text[start : start + size] for start in starts]
