# Mistake: raises TypeError for bad settings, where the lesson asks for ValueError.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise TypeError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
