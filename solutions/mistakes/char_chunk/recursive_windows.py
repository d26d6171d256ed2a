# Mistake: recurses once per window, so a long document reaches the recursion limit.
def chunk(text: str, size: int, overlap: int, start: int = 0) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    if start >= len(text):
        return []
    window = text[start : start + size]
    if start + size >= len(text):
        return [window]
    return [window] + chunk(text, size, overlap, start + size - overlap)
