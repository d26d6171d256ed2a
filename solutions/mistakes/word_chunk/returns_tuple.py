# Mistake: returns a tuple of chunks instead of a list.
def solve(text: str, size: int, overlap: int) -> tuple[str, ...]:
    words = text.split()
    chunks = []
    for start in range(0, len(words), size - overlap):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return tuple(chunks)
