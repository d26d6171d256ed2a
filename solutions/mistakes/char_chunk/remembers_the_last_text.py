# Mistake: keeps the chunks of the last text and gives them back when the same text comes again,
# whatever the settings of the new call.
last_text = None
last_chunks: list[str] = []


def chunk(text: str, size: int, overlap: int) -> list[str]:
    global last_text, last_chunks
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be positive and 0 <= overlap < size")
    if text and text == last_text:
        return list(last_chunks)
    chunks = []
    start = 0
    while start < len(text):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    last_text, last_chunks = text, chunks
    return list(chunks)
