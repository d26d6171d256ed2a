# Mistake: keeps the chunks of the last text and gives them back when the same text comes again,
# whatever the settings of the new call.
remembered: dict[str, list[str]] = {}


def solve(text: str, size: int, overlap: int) -> list[str]:
    if text in remembered:
        return list(remembered[text])
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    remembered.clear()
    remembered[text] = chunks
    return list(chunks)
