# Mistake: splits at spaces and line breaks only, so a tab does not separate two words.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = [word for word in re.split(r"[ \n]+", text) if word]
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
