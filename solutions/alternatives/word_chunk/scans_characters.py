# Alternative: finds the words by scanning the characters with str.isspace, without split().
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = []
    current = ""
    for char in text + " ":  # the extra space ends the last word
        if char.isspace():
            if current:
                words.append(current)
            current = ""
        else:
            current += char
    return [
        " ".join(words[start : start + size])
        for start in range(0, len(words), size - overlap)
        # keep a start only if the chunk before it did not already hold the last word
        if start == 0 or start - (size - overlap) + size < len(words)
    ]
