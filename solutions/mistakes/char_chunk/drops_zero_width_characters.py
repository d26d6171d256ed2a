# Mistake: cleans the text first, dropping the byte order mark and zero-width characters.
INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"


def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    text = text.translate({ord(c): None for c in INVISIBLE})
    chunks = []
    start = 0
    while start < len(text):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
