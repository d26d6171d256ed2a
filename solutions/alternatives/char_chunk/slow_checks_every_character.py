# Alternative: checks and copies every character of every window alone (20x slower, linear).
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError("size must be at least 1 and 0 <= overlap < size")
    chunks = []
    start = 0
    while start < len(text):
        characters = []
        for position in range(start, start + size):
            if position >= len(text):
                break
            character = text[position : position + 1]
            if len(character) != 1 or not isinstance(character, str):
                raise AssertionError("a character of the text is one character")
            if chr(ord(character)) != text[position]:
                raise AssertionError("a character reads back as itself")
            characters.append(str(character))
        window = "".join(characters)
        if window != text[start : start + size]:
            raise AssertionError("the window is a piece of the text")
        chunks.append(window)
        if start + size >= len(text):
            break
        start += size - overlap
    return chunks
