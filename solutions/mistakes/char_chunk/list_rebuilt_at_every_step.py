# Mistake: builds a new list at every step (chunks = chunks + [...]), so a long text takes ages.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    start = 0
    while start < len(text):
        chunks = chunks + [text[start : start + size]]
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
