"""Reference solution of word_chunk: overlapping windows of words."""


def solve(text: str, size: int, overlap: int) -> list[str]:
    """Cut `text` into chunks of `size` words; neighbours share `overlap` words."""
    # split() with no argument cuts at every run of spaces, tabs and line breaks
    # and never yields empty strings, so a blank text has no words at all.
    words = text.split()
    # The next chunk starts `size - overlap` words later, so it opens with the
    # last `overlap` words of the chunk before it.
    step = size - overlap
    chunks: list[str] = []
    for start in range(0, len(words), step):
        # Slicing past the end is safe: the last chunk just holds fewer words.
        chunks.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            # This chunk holds the last word; a later one would only repeat words.
            break
    return chunks
