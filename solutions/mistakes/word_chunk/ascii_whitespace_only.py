# Mistake: splits at ASCII whitespace only, so \u2028, \x85, \xa0 or \u3000 do not separate words.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    words = [word for word in re.split(r"[ \t\n\r\f\v]+", text) if word]
    chunks = []
    start = 0
    while start < len(words):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
