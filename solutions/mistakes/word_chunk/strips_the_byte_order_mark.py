# Mistake: removes the byte order mark that opens a text read from a file, changing its first word.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.removeprefix("\ufeff").split()
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
