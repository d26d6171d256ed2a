# Mistake: makes the last chunk full by taking the final size characters, so it breaks the step.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    if len(text) <= size:
        return [text] if text else []
    chunks = []
    start = 0
    while start + size < len(text):
        chunks.append(text[start : start + size])
        start += size - overlap
    chunks.append(text[-size:])
    return chunks
