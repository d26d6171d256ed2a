# Mistake: recounts the words already used at every step, so a long text takes ages.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks: list[str] = []
    while True:
        start = sum(size - overlap for _ in chunks)
        if start >= len(words):
            return chunks
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            return chunks
