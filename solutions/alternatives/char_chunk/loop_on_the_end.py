# Alternative: a while loop that tracks where the last window ended instead of where it started.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be 1 or more and overlap between 0 and size - 1")
    if not text:
        return []
    chunks = [text[:size]]
    end = size
    # Another window is needed only while the text goes on past the last one.
    while end < len(text):
        start = end - overlap
        end = start + size
        chunks.append(text[start:end])
    return chunks
