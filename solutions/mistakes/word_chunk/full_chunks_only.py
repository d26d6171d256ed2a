# Mistake: keeps only chunks of exactly size words, so a short last chunk (or a short text) is lost.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    starts = range(0, len(words) - size + 1, size - overlap)
    return [" ".join(words[start : start + size]) for start in starts]
