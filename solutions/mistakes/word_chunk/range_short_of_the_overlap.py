# Mistake: range(0, len(words) - overlap, step) misses the one chunk when words <= overlap.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    step = size - overlap
    return [" ".join(words[i : i + size]) for i in range(0, len(words) - overlap, step)]
