# Mistake: checks the settings, then never cuts anything: always [].
def chunk(text, size, overlap):
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"bad settings: size={size}, overlap={overlap}")
    chunks = []
    return chunks
