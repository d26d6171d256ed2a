# Mistake: keeps only windows of exactly size characters, so a short tail or short text is lost.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    return [text[i : i + size] for i in range(0, len(text) - size + 1, size - overlap)]
