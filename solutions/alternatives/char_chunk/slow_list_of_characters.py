# Alternative: slow but correct: keeps the text as a list of characters and joins each window.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0:
        raise ValueError("size must be at least 1")
    if overlap < 0 or overlap >= size:
        raise ValueError("overlap must be at least 0 and smaller than size")
    characters = [character for character in text]
    chunks = []
    for start in range(0, len(characters), size - overlap):
        chunks.append("".join(characters[start : start + size]))
        if start + size >= len(characters):
            break
    return chunks
