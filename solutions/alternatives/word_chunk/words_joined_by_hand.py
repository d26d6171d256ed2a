# Alternative: joins each chunk's words by hand with +=, one word at a time (a few times slower).
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    chunks = []
    start = 0
    while start < len(words):
        piece = ""
        for word in words[start : start + size]:
            piece += (" " if piece else "") + word
        chunks.append(piece)
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
