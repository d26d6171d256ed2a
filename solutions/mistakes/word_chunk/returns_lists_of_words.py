# Mistake: forgets to join, so each chunk is a list of words instead of one string.
def solve(text: str, size: int, overlap: int) -> list[list[str]]:
    words = text.split()
    chunks = []
    for start in range(0, len(words), size - overlap):
        chunks.append(words[start : start + size])
        if start + size >= len(words):
            break
    return chunks
