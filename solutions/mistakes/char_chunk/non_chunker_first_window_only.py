# Mistake: returns the first window only, forgetting to move on.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("invalid size or overlap")
    chunks = []
    start = 0
    if start < len(text):
        chunks.append(text[start : start + size])
    return chunks
