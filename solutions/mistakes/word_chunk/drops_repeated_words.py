# Mistake: removes repeated words (dict.fromkeys), so a word that appears again is lost.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = list(dict.fromkeys(text.split()))
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
