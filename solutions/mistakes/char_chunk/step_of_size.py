# Mistake: moves the window by size instead of size - overlap, so chunks never overlap.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
