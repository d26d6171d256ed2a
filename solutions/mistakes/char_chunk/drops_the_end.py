# Mistake: an off-by-one loop bound stops one window early, so the end of the text is lost.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text) - size, size - overlap):
        chunks.append(text[start : start + size])
    return chunks
