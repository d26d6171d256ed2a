# Mistake: moves the start by overlap words instead of size - overlap.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    # With overlap 0, range() refuses a step of 0 and raises.
    for start in range(0, len(words), overlap):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
