# Mistake: returns a short text whole before checking the settings, so bad settings slip through.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if not text:
        return []
    if len(text) <= size:
        return [text]
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
