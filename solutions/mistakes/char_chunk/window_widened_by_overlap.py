# Mistake: reads overlap as extra characters added to each window, steps by size.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size):
        chunks.append(text[start : start + size + overlap])
        if start + size + overlap >= len(text):
            break
    return chunks
