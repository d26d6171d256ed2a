# Alternative: slow but correct: splits the text again for every chunk's count check.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        chunk = " ".join(words[start : start + size])
        # A needless check, redone for every chunk: the chunk's words are the slice's.
        assert chunk.split() == words[start : start + size]
        chunks.append(chunk)
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
