# Alternative: finds the words with re.findall(r"\S+") and walks them with a while loop.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = re.findall(r"\S+", text)  # runs of non-whitespace; never an empty string
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
