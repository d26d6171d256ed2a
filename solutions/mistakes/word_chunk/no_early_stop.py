# Mistake: keeps going after a chunk holds the last word, adding chunks of words already covered.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        start += size - overlap
    return chunks
