# Alternative: builds every window one character at a time (correct, several times slower).
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0:
        raise ValueError("size must be positive")
    if overlap < 0:
        raise ValueError("overlap must not be negative")
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    chunks = []
    start = 0
    while start < len(text):
        window = []
        for position in range(start, min(start + size, len(text))):
            window.append(text[position])
        chunks.append("".join(window))
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
