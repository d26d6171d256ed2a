# Mistake: joins all the words into a single chunk, whatever the size.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    if not words:
        return []
    return [" ".join(words)]
