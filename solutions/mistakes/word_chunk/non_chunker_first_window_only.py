# Mistake: returns the first size words only, forgetting the rest.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = text.split()
    return [" ".join(words[:size])] if words else []
