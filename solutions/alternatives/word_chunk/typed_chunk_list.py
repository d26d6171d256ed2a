# Alternative: returns its own subclass of list, holding chunks of its own subclass of str.
class Chunk(str):
    """One chunk: a string that shows itself as a chunk."""

    def __repr__(self) -> str:
        return f"<a Chunk: {str.__repr__(self)}>"


class ChunkList(list):
    """The chunks of one text, in order."""


def solve(text: str, size: int, overlap: int) -> ChunkList:
    words = text.split()
    chunks = ChunkList()
    start = 0
    while start < len(words):
        chunks.append(Chunk(" ".join(words[start : start + size])))
        if start + size >= len(words):
            break
        start += size - overlap
    return chunks
