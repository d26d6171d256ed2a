# Mistake: checks the settings with assert, which raises AssertionError rather than ValueError.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    assert size > 0, "size must be positive"
    assert 0 <= overlap < size, "overlap must be in 0..size-1"
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
