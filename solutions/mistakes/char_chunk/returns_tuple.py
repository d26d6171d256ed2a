# Mistake: returns a tuple of chunks instead of a list.
def chunk(text: str, size: int, overlap: int) -> tuple[str, ...]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return tuple(chunks)
