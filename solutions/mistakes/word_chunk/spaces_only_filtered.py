# Mistake: splits at single spaces and drops empty pieces, so tabs and line breaks still glue words.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = [word for word in text.split(" ") if word]
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
