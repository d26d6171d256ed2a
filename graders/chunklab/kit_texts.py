"""The fixed texts the kit owns: the long documents every lesson is checked on.

They are the same for every submission, every machine and every run: made
once per kit from a seed, kept in the kit's cache folder as plain files
(checked against the digest below when read), and never made again at the
start of a grading run. A worker does not receive them as part of a request:
its zygote reads the files once, and a request names the text it passes
(`KitText`), so a long argument never crosses a pipe as JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import operator
import os
import random
import re
import tempfile
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from chunklab.kit import cache_dir

WORDS = (
    "retrieval chunk the a document long of manual vector index fact question answer "
    "model prompt search passage Mr. e.g. résumé naïve 3.14 RAG overlap window"
).split()
GAPS = (" ", " ", " ", " ", " ", "\n", ". ", "! ", "? ", "\t", ", ", "; ", ": ", ".\n\n")

# The long document (about 80 pages), and the same text ten times shorter (its start).
LONG_LENGTH = 200_000
SHORT_LENGTH = 20_000
SEED = 20_000_200
# A call timed again is given a text of its length that the code has not been given: code
# that keeps its answers by the text would answer at once, and which of its timings counted
# would depend on the load. Draw 0 is the text itself; each later draw is the same text with
# one word near each end swapped for another of its length and kind (`SWAPPED`), so an
# answer right on the one is right on the other. A check times each length up to three
# times, and the short text once more; a test makes up to two checks (the pipeline's
# chunk_text and process_document), each on texts of its own.
DRAWS = {LONG_LENGTH: 6, SHORT_LENGTH: 8}
SWAPPED = ("vector", "prompt")
# BLAKE2b (16 bytes) of each text as UTF-8: a text that ever came out otherwise (another
# Python's random numbers, a damaged cached file) is never graded with.
DIGESTS = {
    "long-200000": "2be7dcea0daaf0558f87c3a50318b432",
    "long-200000-1": "d5fcef76c72709f8eac144585a89e866",
    "long-200000-2": "a55d75ea4050fca13f849cd2d8bac412",
    "long-200000-3": "25025993d9eefdd982f198601116535c",
    "long-200000-4": "2252066c962b657195f62421872630cf",
    "long-200000-5": "91c31cb618587a3cb31fb0cb93d944cc",
    "long-20000": "b28217346b71982372730cb4ae5788c6",
    "long-20000-1": "15fcede11199940ca7968a629ec23afd",
    "long-20000-2": "54688d994ae9914c04ead075087e704f",
    "long-20000-3": "ca721cf2b46da3f98bdc7b036e83d07b",
    "long-20000-4": "b4838b1e23c82f8f43707a126c1b68b1",
    "long-20000-5": "c867d482c560a855b1ac7642ac42e046",
    "long-20000-6": "a6b66f2713d22f947420708eadb72007",
    "long-20000-7": "5f94b88bd00059725de476614917a625",
}


class KitText(str):
    """A fixed text of the kit, as grader tests pass it: a `str` that knows its name.

    A call into a worker sends the name in place of the text (see `submission_proxy`).
    """

    name: str

    def __new__(cls, text: str, name: str) -> KitText:
        made = super().__new__(cls, text)
        made.name = name
        return made


class KitTextDamaged(RuntimeError):
    """A fixed text did not come out as the kit's digest says: the kit cannot grade with it."""


def make_text(length: int) -> str:
    """The first `length` characters of the words-and-gaps text: a shorter text is the
    start of a longer one."""
    draw = random.Random(SEED)
    pieces = LONG_LENGTH // 4 + 1  # a piece is at least 2 characters, about 8 on average
    words = draw.choices(WORDS, k=pieces)
    gaps = draw.choices(GAPS, k=pieces)
    return "".join(map(operator.add, words, gaps))[:length]


def text_name(length: int, draw: int = 0) -> str:
    """The name of the fixed text of `length` characters drawn `draw`-th."""
    return f"long-{length}" if draw == 0 else f"long-{length}-{draw}"


def made_text(name: str) -> str:
    """The fixed text `name`, made from the seed."""
    length, draw = length_and_draw(name)
    text = make_text(length)
    if draw == 0:
        return text
    old, new = SWAPPED
    # The draw-th occurrence from the start and the draw-th from the end: the text's
    # beginning and end both differ from every other draw's.
    starts = [found.start() for found in re.finditer(rf"\b{old}\b", text)]
    for start in (starts[draw - 1], starts[-draw]):
        text = text[:start] + new + text[start + len(old) :]
    return text


def digest_of(text: str) -> str:
    return digest_of_bytes(text.encode())


def digest_of_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def length_and_draw(name: str) -> tuple[int, int]:
    _, length, *draw = name.split("-")
    return int(length), int(draw[0]) if draw else 0


@cache
def text_file(name: str) -> Path:
    """The cached file holding the fixed text `name`, made (and checked) on first need."""
    expected = DIGESTS[name]
    path = cache_dir() / "texts" / f"{name}-{expected}.txt"
    with contextlib.suppress(OSError):
        # The file's bytes are the text's UTF-8: hashed as they are, nothing decoded.
        if digest_of_bytes(path.read_bytes()) == expected:
            return path
    text = made_text(name)
    if digest_of(text) != expected:
        raise KitTextDamaged(
            f"the kit's text {name} came out differently on this Python; "
            "grading with it would change the grades: report this to the kit's maintainers"
        )
    try:
        return write_atomically(path, text)
    except OSError:  # a read-only cache: a private folder of this process's own
        return write_atomically(Path(tempfile.mkdtemp(prefix="chunklab-texts-")) / path.name, text)


def write_atomically(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".texts-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
    return path


@cache
def kit_text(name: str) -> KitText:
    """The fixed text `name` (`long-200000`, `long-20000-2`), read once per process."""
    text = text_file(name).read_text(encoding="utf-8")
    if digest_of(text) != DIGESTS[name]:
        raise KitTextDamaged(f"the cached text {text_file(name)} changed while it was read")
    return KitText(text, name)


def kit_text_files() -> dict[str, str]:
    """Every fixed text's name and cached file, as a zygote reads them for its workers."""
    return {name: str(text_file(name)) for name in DIGESTS}


def call_arguments(message: dict[str, Any]) -> list[Any]:
    """A call request's positional arguments, each fixed text it names put back in its place."""
    args = list(message.get("args", []))
    for place in message.get("texts", ()):
        if len(place) == 3:  # a field of a dict argument: a document's body
            args[place[0]] = {**args[place[0]], place[1]: kit_text(place[2])}
        else:
            args[place[0]] = kit_text(place[1])
    return args


@cache
def plain_text(name: str) -> str:
    """The fixed text `name` as a plain `str`, as a worker holds it."""
    return str.__str__(kit_text(name))


class KitTexts(Mapping[str, str]):
    """Every fixed text by name, each read when first asked for: for a worker in this process."""

    def __getitem__(self, name: str) -> str:
        if name not in DIGESTS:
            raise KeyError(name)
        return plain_text(name)

    def __iter__(self) -> Iterator[str]:
        return iter(DIGESTS)

    def __len__(self) -> int:
        return len(DIGESTS)
