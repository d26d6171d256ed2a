"""Similar code: pairs of a lesson's submissions that share most of their code.

Fingerprints come from `copydetect` (an optional extra: `pip install
chunklab[similarity]`): it tokenizes with Pygments, replaces every name by
one letter (so renaming variables changes nothing), drops comments, and hashes
every k-gram of the tokens. The lesson's given code (its stub and the
notebook's own cells) is fingerprinted as boilerplate and never counts.

A pair's share, for each side, is the part of its fingerprints the other side
also holds; a pair is flagged when the larger share (how much of the smaller
submission lies in the other) reaches the threshold. Comparing two sets of
fingerprints costs about a microsecond, so every pair of a class of a
thousand is compared; copydetect then finds the matching regions of the
flagged pairs only.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from chunklab.errors import UsageError

# A k-gram of this many characters of tokenized code (about a line) is one fingerprint;
# shorter matches are idioms every solution shares.
NOISE_CHARS = 30
# Flagged when this share of one submission's fingerprints is also the other's. Disguised
# copies of the kit's solutions share 0.95 or more; independent solutions at most about 0.5.
THRESHOLD = 0.7
# A pair must share at least this many fingerprints (a few lines of code), so a
# submission of two lines that appear in a longer one is not flagged for that alone.
MIN_SHARED = 40


@dataclass(frozen=True)
class CodeText:
    """One submission's code, as the student wrote it."""

    lesson: str
    submission: str
    student: str
    source: str


@dataclass(frozen=True)
class SimilarPair:
    lesson: str
    first: CodeText
    second: CodeText
    first_share: float
    second_share: float
    # The matching stretches of each side's source, as (start, end) character offsets.
    first_regions: tuple[tuple[int, int], ...]
    second_regions: tuple[tuple[int, int], ...]

    @property
    def score(self) -> float:
        return max(self.first_share, self.second_share)


def copydetect_module() -> Any:
    try:
        import copydetect
    except ImportError:
        raise UsageError(
            "--similarity needs the copydetect package: pip install 'chunklab[similarity]'"
        ) from None
    return copydetect


@dataclass(frozen=True)
class Fingerprinted:
    code: CodeText
    fingerprint: Any
    hashes: frozenset[int]


def fingerprint(copydetect: Any, source: str, boilerplate: Any = None) -> Any:
    return copydetect.CodeFingerprint(
        "submission.py",
        NOISE_CHARS,
        1,
        boilerplate=boilerplate,
        language="python",
        fp=io.StringIO(source),
    )


def similar_pairs(
    codes: Iterable[CodeText], given: Mapping[str, str], threshold: float = THRESHOLD
) -> list[SimilarPair]:
    """The flagged pairs of each lesson, most similar first.

    `given` maps a lesson to its given code (stub and notebook cells), whose
    fingerprints are left out of every submission's.
    """
    copydetect = copydetect_module()
    import numpy as np

    boilerplates = {
        lesson: np.array(sorted(fingerprint(copydetect, text).hashes), dtype=np.int64)
        for lesson, text in given.items()
    }
    by_lesson: dict[str, list[Fingerprinted]] = {}
    for code in codes:
        printed = fingerprint(copydetect, code.source, boilerplates.get(code.lesson))
        by_lesson.setdefault(code.lesson, []).append(
            Fingerprinted(code, printed, frozenset(int(h) for h in printed.hashes))
        )
    pairs: list[SimilarPair] = []
    for lesson in sorted(by_lesson):
        # Sorted, so a pair reads the same whatever order grading finished in.
        ordered = sorted(by_lesson[lesson], key=lambda f: (f.code.submission, f.code.student))
        for one, other in itertools.combinations(ordered, 2):
            shared = len(one.hashes & other.hashes)
            if shared < MIN_SHARED:
                continue
            shares = shared / len(one.hashes), shared / len(other.hashes)
            if max(shares) >= threshold:
                pairs.append(compared(copydetect, lesson, one, other, shares))
    pairs.sort(key=lambda p: (-p.score, p.lesson, p.first.submission, p.second.submission))
    return pairs


def compared(
    copydetect: Any,
    lesson: str,
    one: Fingerprinted,
    other: Fingerprinted,
    shares: tuple[float, float],
) -> SimilarPair:
    """The pair with the regions of each side that match the other."""
    _, _, (first, second) = copydetect.compare_files(one.fingerprint, other.fingerprint)
    return SimilarPair(
        lesson,
        one.code,
        other.code,
        round(shares[0], 4),
        round(shares[1], 4),
        regions(first, len(one.code.source)),
        regions(second, len(other.code.source)),
    )


def regions(slices: Any, length: int) -> tuple[tuple[int, int], ...]:
    """copydetect's slices (starts in row 0, ends in row 1) as merged (start, end) offsets."""
    found: list[tuple[int, int]] = []
    for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist(), strict=True)):
        start, end = max(0, int(start)), min(length, int(end))
        if found and start <= found[-1][1]:
            found[-1] = (found[-1][0], max(found[-1][1], end))
        elif start < end:
            found.append((start, end))
    return tuple(found)


def line_span(source: str, region: tuple[int, int]) -> tuple[int, int]:
    """The first and last line (counted from 1) a region of `source` touches."""
    start, end = region
    return source.count("\n", 0, start) + 1, source.count("\n", 0, max(start, end - 1)) + 1


def line_spans(source: str, regions: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The lines the regions touch, as (first, last) spans; touching spans merged."""
    spans: list[tuple[int, int]] = []
    for first, last in (line_span(source, region) for region in regions):
        if spans and first <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last))
        else:
            spans.append((first, last))
    return tuple(spans)
