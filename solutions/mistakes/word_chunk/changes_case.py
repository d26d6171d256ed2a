# Mistake: lowercases the text, so capital letters are not kept as written.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.lower().split()
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
