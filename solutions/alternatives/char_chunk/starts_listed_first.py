# Alternative: lists every start first, then checks each window's end again (a few times slower).
def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"invalid settings: size={size}, overlap={overlap}")
    starts = []
    position = 0
    while position < len(text):
        starts.append(position)
        if position + size >= len(text):
            break
        position += size - overlap
    pieces = []
    for start in starts:
        end = min(start + size, len(text))
        piece = text[start:end]
        assert len(piece) == end - start
        pieces.append(str(piece))
    return [p for p in pieces if len(p) > 0]
