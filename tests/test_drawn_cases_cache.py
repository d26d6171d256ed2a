"""The kept copy of drawn inputs is checked before use: a damaged copy is never graded with."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from chunklab.suites.checks import DrawnCases, DrawnCasesDamaged, cached_cases, draw_cases
from chunklab.suites.word_chunk.hidden_inputs import valid_calls
from tests.conftest import LESSON_IDS

STRATEGY = valid_calls
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


def one_letter():
    from hypothesis import strategies as st

    return st.tuples(st.sampled_from("ab"))


def two_letters():
    from hypothesis import strategies as st

    return st.tuples(st.sampled_from("ab"), st.sampled_from("cd"))


def test_each_strategy_function_has_its_own_kept_copy(cache):
    one = list(DrawnCases(one_letter, 3))
    two = list(DrawnCases(two_letters, 3))
    assert {len(case) for case in one} == {1} and {len(case) for case in two} == {2}
    assert len(list(cache.iterdir())) == 2
    # Asked again, each is read back from its own copy.
    assert cached_cases(one_letter, 3) == one
    assert cached_cases(two_letters, 3) == two
    assert len(list(cache.iterdir())) == 2


def test_importing_the_hidden_suites_does_not_import_hypothesis():
    # A warm grading run reads the kept inputs; Hypothesis is imported only to draw.
    imports = "; ".join(f"import chunklab.suites.{lesson}.test_hidden" for lesson in LESSON_IDS)
    shown = "print(sorted(m for m in sys.modules if m.partition('.')[0] == 'hypothesis'))"
    run = subprocess.run(
        [sys.executable, "-c", f"import sys; {imports}; {shown}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout == "[]\n"


MARKER = "chunklab-marker-\u03a9"


def marked_texts() -> object:
    from hypothesis import strategies as st

    return st.lists(st.text(max_size=30), min_size=5, max_size=5)


def hypothesis_alone(count: int) -> list:
    """What Hypothesis draws with its usual settings and none of the kit's care."""
    from hypothesis import HealthCheck, Phase, given, settings

    drawn: list = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(marked_texts())
    def collect(case: list) -> None:
        drawn.append(case)

    collect()
    return drawn


def test_drawn_cases_do_not_depend_on_the_local_modules_loaded(tmp_path, monkeypatch):
    before = draw_cases(marked_texts(), 300)
    alone_before = hypothesis_alone(300)
    # A local module with constants of its own, as a submission loaded in this process.
    folder = tmp_path / "local"
    folder.mkdir()
    (folder / "marker_module.py").write_text(
        "".join(f"NAME_{k} = {MARKER + str(k)!r}\n" for k in range(50))
    )
    monkeypatch.syspath_prepend(str(folder))
    import marker_module  # noqa: F401

    # Hypothesis alone draws otherwise once the module is loaded ...
    assert hypothesis_alone(300) != alone_before
    # ... the kit's draws stay what they were.
    assert draw_cases(marked_texts(), 300) == before
    monkeypatch.delitem(sys.modules, "marker_module")
