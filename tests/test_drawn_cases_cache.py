"""The kept copy of drawn inputs is checked before use: a damaged copy is never graded with."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from chunklab.suites.checks import DrawnCasesDamaged, cached_cases

STRATEGY = "chunklab.suites.word_chunk.hidden_inputs:valid_calls"
COUNT = 5


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "chunklab" / "cases"


def kept_file(cache: Path) -> Path:
    (only,) = cache.iterdir()
    return only


def test_kept_cases_are_read_back_as_drawn(cache):
    drawn = cached_cases(STRATEGY, COUNT)
    assert len(drawn) == COUNT
    assert cached_cases(STRATEGY, COUNT) == drawn


def test_kept_cases_are_private_to_the_grading_user(cache):
    cached_cases(STRATEGY, COUNT)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(kept_file(cache).stat().st_mode) == 0o600


@pytest.mark.parametrize("damage", ["edited", "truncated", "checksum only", "empty"])
def test_a_damaged_copy_is_drawn_again_and_reported(cache, damage):
    drawn = cached_cases(STRATEGY, COUNT)
    path = kept_file(cache)
    digest, _, body = path.read_bytes().partition(b"\n")
    cases = json.loads(body)
    if damage == "edited":
        # Inputs an attacker would prefer: every case the same easy one.
        path.write_bytes(digest + b"\n" + json.dumps([cases[0]] * COUNT).encode())
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[: len(digest) + len(body) // 2])
    elif damage == "checksum only":
        path.write_bytes(digest)
    else:
        path.write_bytes(b"")
    with pytest.warns(DrawnCasesDamaged, match="damaged"):
        again = cached_cases(STRATEGY, COUNT)
    assert again == drawn
    # The copy was kept again, whole: the next read needs no new draw and warns nothing.
    assert path.read_bytes().partition(b"\n")[2] == body
