# Mistake: caps the overlap at half the size, thinking a larger overlap is a mistake.
def solve(text, size, overlap):
    words = text.split()
    overlap = min(overlap, size // 2)
    out = []
    start = 0
    while start < len(words):
        out.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
        start += size - overlap
    return out
