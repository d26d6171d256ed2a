# Mistake: cuts each chunk out of the original text, keeping its tabs, line breaks and extra spaces.
import re


def solve(text: str, size: int, overlap: int) -> list[str]:
    spans = [match.span() for match in re.finditer(r"\S+", text)]
    chunks = []
    for start in range(0, len(spans), size - overlap):
        window = spans[start : start + size]
        chunks.append(text[window[0][0] : window[-1][1]])
        if start + size >= len(spans):
            break
    return chunks
