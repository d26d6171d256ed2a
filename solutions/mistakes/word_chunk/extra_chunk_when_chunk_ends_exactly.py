# Mistake: stops only once a chunk would pass the last word (> instead of >=): one chunk too many.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    for start in range(0, len(words), size - overlap):
        chunks.append(" ".join(words[start : start + size]))
        if start + size > len(words):
            break
    return chunks
