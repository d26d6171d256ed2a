# Mistake: recurses once per chunk, so a long document reaches the recursion limit.
def solve(text: str, size: int, overlap: int) -> list[str]:
    return windows(text.split(), size, overlap)


def windows(words: list[str], size: int, overlap: int) -> list[str]:
    if not words:
        return []
    first = " ".join(words[:size])
    if size >= len(words):
        return [first]
    return [first, *windows(words[size - overlap :], size, overlap)]
