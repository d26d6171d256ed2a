"""Reference solution of char_chunk: overlapping windows of characters."""


def chunk(text: str, size: int, overlap: int) -> list[str]:
    """Cut `text` into windows of `size` characters; neighbours share `overlap` characters."""
    # Check the settings before anything else: with overlap >= size the start of
    # the window would never move forward.
    if size <= 0:
        raise ValueError(f"size must be 1 or more, got {size}")
    if overlap < 0:
        raise ValueError(f"overlap must be 0 or more, got {overlap}")
    if overlap >= size:
        raise ValueError(f"overlap must be smaller than size ({size}), got {overlap}")

    # Each window starts `size - overlap` characters after the previous one, so
    # the last `overlap` characters of a window open the next one.
    step = size - overlap
    chunks: list[str] = []
    # An empty text gives an empty range, hence [] with no special case.
    for start in range(0, len(text), step):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            # This window reached the end; a later one would only repeat its tail.
            break
    return chunks
