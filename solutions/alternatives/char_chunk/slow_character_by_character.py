# Alternative: slow but correct: builds every window one character at a time.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be at least 1 and 0 <= overlap < size")
    chunks = []
    start = 0
    while start < len(text):
        window = ""
        position = start
        while position < len(text) and position < start + size:
            window += text[position]
            position += 1
        chunks.append(window)
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
