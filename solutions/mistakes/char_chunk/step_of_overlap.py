# Mistake: moves the window by overlap instead of size - overlap.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    # With overlap 0, range() refuses a step of 0 and raises.
    for start in range(0, len(text), overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
