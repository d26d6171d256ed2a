# Mistake: takes hyphens, dashes and slashes for separators, so "well-known" counts as two words.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = [word for word in re.split(r"[\s\-\u2013\u2014/]+", text) if word]
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
