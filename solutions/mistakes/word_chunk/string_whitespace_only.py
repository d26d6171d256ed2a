# Mistake: splits at string.whitespace only, missing Unicode line breaks and spaces.
import re
import string


def solve(text: str, size: int, overlap: int) -> list[str]:
    separators = "[" + re.escape(string.whitespace) + "]+"
    words = [word for word in re.split(separators, text) if word]
    chunks = []
    for start in range(0, len(words), size - overlap):
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return chunks
