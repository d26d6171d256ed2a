# Mistake: forgets to reject a negative overlap, so the windows leave gaps instead of raising.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap >= size:
        raise ValueError("size must be positive and overlap smaller than size")
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
