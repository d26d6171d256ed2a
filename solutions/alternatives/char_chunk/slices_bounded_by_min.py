# Alternative: a while True loop that bounds each slice with min() and checks settings in one line.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if not (size > 0 and 0 <= overlap < size):
        raise ValueError(f"need size > 0 and 0 <= overlap < size, got {size=}, {overlap=}")
    if text == "":
        return []
    result: list[str] = []
    i = 0
    while True:
        end = min(i + size, len(text))
        result.append(text[i:end])
        if end == len(text):
            return result
        i += size - overlap
