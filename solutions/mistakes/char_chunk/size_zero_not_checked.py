# Mistake: checks size < 0 instead of size <= 0, so a size of 0 slips through.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size < 0 or overlap < 0 or overlap >= size and size > 0:
        raise ValueError("bad settings")
    if not text:
        return []
    out, i = [], 0
    while True:
        out.append(text[i : i + size])
        if i + size >= len(text) or size == 0:
            return out
        i += size - overlap
