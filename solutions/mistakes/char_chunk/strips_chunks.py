# Mistake: strips whitespace off each chunk, so characters are lost and chunks come out short.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size].strip())
        if start + size >= len(text):
            break
    return chunks
