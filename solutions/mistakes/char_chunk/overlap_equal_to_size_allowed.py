# Mistake: checks overlap > size instead of overlap >= size; overlap == size then divides by zero.
def chunk(text: str, size: int, overlap: int) -> list[str]:
    if size <= 0 or overlap < 0 or overlap > size:
        raise ValueError("size must be positive and 0 <= overlap <= size")
    if not text:
        return []
    step = size - overlap
    # Number of windows, counted up front: the last one is the first to reach the end.
    count = max(1, -(-(len(text) - overlap) // step))
    return [text[k * step : k * step + size] for k in range(count)]
