# Mistake: range(0, len(text) - overlap, step) misses the chunk of a text no longer than overlap.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size < 1:
        raise ValueError("size must be at least 1")
    if overlap < 0 or overlap >= size:
        raise ValueError("overlap must be at least 0 and smaller than size")
    return [text[i : i + size] for i in range(0, len(text) - overlap, size - overlap)]
