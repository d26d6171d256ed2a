# Alternative: slow but correct: finds the words one character at a time and glues each chunk.
def solve(text: str, size: int, overlap: int) -> list[str]:
    words = []
    word = ""
    for character in text:
        if character.isspace():
            if word:
                words.append(word)
            word = ""
        else:
            word += character
    if word:
        words.append(word)
    chunks = []
    start = 0
    while start < len(words):
        piece = ""
        for word in words[start : start + size]:
            piece = word if not piece else piece + " " + word
        chunks.append(piece)
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
