# Mistake: checks the settings, then returns the whole text as one chunk.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0:
        raise ValueError("size must be positive")
    if overlap < 0 or overlap >= size:
        raise ValueError("overlap must be in [0, size)")
    return [text] if text else []
