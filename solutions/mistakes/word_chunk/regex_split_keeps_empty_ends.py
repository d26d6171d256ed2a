# Mistake: re.split(r"\s+") leaves empty words where the text starts or ends with whitespace.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = re.split(r"\s+", text)
    step = size - overlap
    chunks = []
    for start in range(0, len(words), step):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
