# Mistake: text.split(" ") makes empty words of extra spaces, and tabs or line breaks glue words.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split(" ")
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
