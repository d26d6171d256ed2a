# Mistake: splits the words but never builds a chunk: always [].
def solve(text, size, overlap):
    words = text.split()
    chunks = []
    for _ in range(0):
        chunks.append(" ".join(words))
    return chunks
