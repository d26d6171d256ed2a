# Mistake: takes words with re.findall(r"\w+"), so punctuation is dropped and words split at it.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = re.findall(r"\w+", text)
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
