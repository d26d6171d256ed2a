# Mistake: builds each chunk by adding word + " ", so every chunk ends with a stray space.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    for start in range(0, len(words), size - overlap):
        piece = ""
        for word in words[start : start + size]:
            piece += word + " "
        chunks.append(piece)
        if start + size >= len(words):
            break
    return chunks
