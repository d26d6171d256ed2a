"""Similar code: pairs of a lesson's submissions that share most of their code.

Fingerprints come from `copydetect` (an optional extra: `pip install
chunklab[similarity]`): it tokenizes with Pygments, replaces every name by
one letter (so renaming variables changes nothing), drops comments, and hashes
every k-gram of the tokens. The lesson's given code (its stub and the
notebook's own cells) is fingerprinted as boilerplate and never counts.

A pair's share, for each side, is the part of its fingerprints the other side
also holds; a pair is flagged when the larger share (how much of the smaller
submission lies in the other) reaches the threshold. Every pair of a lesson
is counted at once, as one matrix product; the matching regions are then
found for the flagged pairs kept.
"""

from __future__ import annotations

import io
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
# The most similar pairs kept, with their matching regions. More flagged pairs than
# this means most of the class shares code the lesson did not give (a common
# template): the count says so, and memory and time stay bounded.
MAX_PAIRS = 5_000
# The most characters of code fingerprinted per submission, several times a long
# solution: fingerprinting costs about 55 microseconds and 140 bytes per character, so a
# submission of a megabyte would take a minute. A longer one is not compared, and said so.
MOST_FINGERPRINTED_CHARS = 20_000
# Fingerprints per block of the pairwise count: a block of a thousand submissions
# takes 16 MB.
COLUMN_BLOCK = 4096


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
    """A submission's fingerprints, kept small: NumPy arrays, not copydetect's dicts."""

    code: CodeText
    # Its distinct fingerprints, sorted.
    hashes: Any
    # Every fingerprint occurrence: its hash and its position in the tokenized code.
    position_hashes: Any
    positions: Any
    # copydetect's map from tokenized positions back to the source.
    offsets: Any


@dataclass(frozen=True)
class Similarity:
    """The flagged pairs kept (most similar first), and how many were flagged in all."""

    pairs: tuple[SimilarPair, ...]
    flagged: int
    # Submissions whose code is longer than MOST_FINGERPRINTED_CHARS: not compared.
    not_compared: tuple[CodeText, ...] = ()


def fingerprint(copydetect: Any, source: str, boilerplate: Any = None) -> Any:
    return copydetect.CodeFingerprint(
        "submission.py",
        NOISE_CHARS,
        1,
        boilerplate=boilerplate,
        language="python",
        fp=io.StringIO(source),
    )


def fingerprinted(copydetect: Any, code: CodeText, boilerplate: Any) -> Fingerprinted:
    import numpy as np

    printed = fingerprint(copydetect, code.source, boilerplate)
    keys = list(printed.hash_idx)
    counts = [len(printed.hash_idx[key]) for key in keys]
    return Fingerprinted(
        code,
        np.unique(np.array(keys, dtype=np.int64)),
        np.repeat(np.array(keys, dtype=np.int64), counts),
        np.array([i for key in keys for i in printed.hash_idx[key]], dtype=np.int64),
        np.asarray(printed.offsets),
    )


def shared_counts(sides: list[Fingerprinted]) -> Any:
    """How many fingerprints each pair of submissions shares: an n×n matrix.

    The submissions × fingerprints table times its transpose, a block of
    fingerprints at a time; fingerprints that only one submission holds are
    left out first, as they add nothing.
    """
    import numpy as np

    if not sides:
        return np.zeros((0, 0), dtype=np.float32)
    hashes = np.concatenate([side.hashes for side in sides])
    owners = np.repeat(np.arange(len(sides)), [len(side.hashes) for side in sides])
    distinct, columns = np.unique(hashes, return_inverse=True)
    held = np.bincount(columns, minlength=len(distinct)) >= 2
    keep = held[columns]
    _, columns = np.unique(columns[keep], return_inverse=True)
    owners = owners[keep]
    counts = np.zeros((len(sides), len(sides)), dtype=np.float32)
    width = COLUMN_BLOCK
    for start in range(0, int(columns.max(initial=-1)) + 1, width):
        chosen = (columns >= start) & (columns < start + width)
        block = np.zeros((len(sides), width), dtype=np.float32)
        block[owners[chosen], columns[chosen] - start] = 1.0
        counts += block @ block.T
    return counts


def similar_pairs(
    codes: Iterable[CodeText],
    given: Mapping[str, str],
    threshold: float = THRESHOLD,
    keep: int = MAX_PAIRS,
) -> Similarity:
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
    too_long: list[CodeText] = []
    for code in codes:
        if len(code.source) > MOST_FINGERPRINTED_CHARS:
            too_long.append(code)
            continue
        side = fingerprinted(copydetect, code, boilerplates.get(code.lesson))
        by_lesson.setdefault(code.lesson, []).append(side)
    found: list[tuple[float, str, int, int, Fingerprinted, Fingerprinted, float, float]] = []
    flagged = 0
    for lesson in sorted(by_lesson):
        # Sorted, so a pair reads the same whatever order grading finished in.
        sides = sorted(by_lesson[lesson], key=lambda f: (f.code.submission, f.code.student))
        shared = shared_counts(sides)
        sizes = np.array([max(1, len(side.hashes)) for side in sides], dtype=np.float32)
        shares = shared / sizes[:, None]  # row i: the share of i's fingerprints
        best = np.maximum(shares, shares.T)
        upper = np.triu(np.ones_like(shared, dtype=bool), k=1)
        firsts, seconds = np.nonzero(upper & (shared >= MIN_SHARED) & (best >= threshold))
        flagged += len(firsts)
        # The most similar first; the pair's place in the class breaks ties.
        order = np.lexsort((seconds, firsts, -best[firsts, seconds]))[:keep]
        for i, j in zip(firsts[order].tolist(), seconds[order].tolist(), strict=True):
            found.append(
                (
                    -float(best[i, j]),
                    lesson,
                    i,
                    j,
                    sides[i],
                    sides[j],
                    float(shares[i, j]),
                    float(shares[j, i]),
                )
            )
    found.sort(key=lambda entry: entry[:4])
    pairs = tuple(
        compared(lesson, one, other, (first, second))
        for _, lesson, _, _, one, other, first, second in found[:keep]
    )
    return Similarity(pairs, flagged, tuple(too_long))


def compared(
    lesson: str, one: Fingerprinted, other: Fingerprinted, shares: tuple[float, float]
) -> SimilarPair:
    """The pair with the regions of each side that match the other."""
    import numpy as np

    shared = np.intersect1d(one.hashes, other.hashes, assume_unique=True)
    return SimilarPair(
        lesson,
        one.code,
        other.code,
        round(shares[0], 4),
        round(shares[1], 4),
        matching_regions(one, shared),
        matching_regions(other, shared),
    )


def matching_regions(side: Fingerprinted, shared: Any) -> tuple[tuple[int, int], ...]:
    """Where the shared fingerprints lie in this side's source, as copydetect maps them back.

    The same steps as `copydetect.compare_files`, on NumPy arrays kept per
    submission instead of its dictionaries (which would take far more memory).
    """
    import numpy as np
    from copydetect.utils import get_copied_slices

    found = side.positions[np.isin(side.position_hashes, shared, assume_unique=False)]
    slices = get_copied_slices(found, NOISE_CHARS)
    offsets = side.offsets
    if len(slices[0]) and len(offsets):
        nearest = np.clip(np.searchsorted(offsets[:, 0], slices), 0, offsets.shape[0] - 1)
        slices = slices + offsets[:, 1][nearest]
    return regions(slices, len(side.code.source))


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
