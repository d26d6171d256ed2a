# Mistake: moves the start by size words instead of size - overlap, so chunks share no words.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    return [" ".join(words[start : start + size]) for start in range(0, len(words), size)]
