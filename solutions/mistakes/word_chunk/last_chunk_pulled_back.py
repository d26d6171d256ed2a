# Mistake: fills the last chunk with the final size words, breaking the size - overlap step.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)] if words else []
    chunks = []
    start = 0
    while start + size < len(words):
        chunks.append(" ".join(words[start : start + size]))
        start += size - overlap
    chunks.append(" ".join(words[-size:]))
    return chunks
