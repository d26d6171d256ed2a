# Alternative: splits with re.split on runs of whitespace and filters out the empty ends.
import re


def solve(text, size, overlap):
    words = [w for w in re.split(r"\s+", text) if w]
    out = []
    i = 0
    while i < len(words):
        out.append(" ".join(words[i : i + size]))
        if i + size >= len(words):
            break
        i += size - overlap
    return out
