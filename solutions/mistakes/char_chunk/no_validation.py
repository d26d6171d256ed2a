# Mistake: never checks size and overlap, so bad settings return odd chunks instead of ValueError.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    chunks = []
    # A step of 0 happens to make range() raise; a negative step silently gives [].
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
