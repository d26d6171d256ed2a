# Mistake: always adds a first chunk, so a text with no words gives [""] instead of [].
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    start = 0
    while True:
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            return chunks
        start += size - overlap
