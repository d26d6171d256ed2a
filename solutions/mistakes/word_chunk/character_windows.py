# Mistake: counts size and overlap in characters, as in char_chunk, instead of in words.
def solve(text: str, size: int, overlap: int) -> list[str]:
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
