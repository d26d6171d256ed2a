# Mistake: quietly returns [] for bad settings instead of raising ValueError.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        return []
    chunks = []
    for start in range(0, len(text), size - overlap):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks
