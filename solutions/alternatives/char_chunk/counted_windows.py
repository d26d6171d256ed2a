# Alternative: counts the windows first with a ceiling division, then builds them by index.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0:
        raise ValueError("size must be 1 or more")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be at least 0 and smaller than size")
    if not text:
        return []
    step = size - overlap
    # The windows after the first must cover the len(text) - size characters the
    # first one leaves; each one covers step more.
    extra = max(0, -(-(len(text) - size) // step))
    return [text[k * step : k * step + size] for k in range(1 + extra)]
