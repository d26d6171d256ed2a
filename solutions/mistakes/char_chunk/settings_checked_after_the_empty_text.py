# Mistake: returns [] for an empty text before looking at the settings.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if not text:
        return []
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    start = 0
    while True:
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            return chunks
        start += size - overlap
