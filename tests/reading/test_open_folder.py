"""A student's folder is opened once and read through that handle, within its limits.

The threats: a folder (or a folder inside it) swapped for a link while it is
read, a folder nested deeper than any file system path, a folder of too many
entries. None may make the grader read outside the folder, or stop.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from chunklab.errors import SubmissionError
from chunklab.reading import folder as folder_module
from chunklab.reading.folder import MOST_FOLDER_DEPTH, OpenFolder
from chunklab.reading.read import read_submission
from tests.reading.deep_folders import nested, unnest

KIT_ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (KIT_ROOT / "solutions" / "char_chunk.py").read_text()
STUB = (KIT_ROOT / "exercises" / "char_chunk.py").read_text()


def student_and_elsewhere(tmp_path: Path, inner: str) -> tuple[Path, Path, Path]:
    """alice's folder (the stub at `inner`), and a folder of the same shape with the solution."""
    alice = tmp_path / "class" / "alice"
    elsewhere = tmp_path / "elsewhere"
    for top, code in ((alice, STUB), (elsewhere, SOLUTION)):
        (top / inner).parent.mkdir(parents=True, exist_ok=True)
        (top / inner).write_text(code)
    return alice, elsewhere, alice / inner


class Listing(list):
    """A folder's entries, already read, that can stand where `os.scandir` is used."""

    def __enter__(self) -> Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("swapped", ["alice", "alice/work"])
def test_a_folder_swapped_for_a_link_after_it_was_listed_is_never_followed(
    tmp_path, monkeypatch, swapped
):
    alice, elsewhere, _ = student_and_elsewhere(tmp_path, "work/char_chunk.py")
    target = tmp_path / "class" / swapped
    link_to = elsewhere if swapped == "alice" else elsewhere / "work"
    real_scandir = os.scandir
    swaps: list[Path] = []

    def scandir_then_swap(where: Any) -> Listing:
        entries = Listing(real_scandir(where))
        for entry in entries:  # the listing is complete, each entry's type known
            entry.stat(follow_symlinks=False)
        if not swaps:  # right after the first listing: the folder becomes a link
            target.rename(target.with_name(target.name + "_moved"))
            target.symlink_to(link_to)
            swaps.append(target)
        return entries

    monkeypatch.setattr(os, "scandir", scandir_then_swap)
    try:
        source = read_submission(alice, "char_chunk")
    except SubmissionError as error:
        assert error.kind in ("unsafe_path", "unreadable")
    else:
        assert [cell.source for cell in source.cells] == [STUB]
    assert swaps == [target]


def test_a_folder_swapped_for_a_link_in_a_loop_never_has_the_links_target_read(
    tmp_path, request
):
    alice, elsewhere, _ = student_and_elsewhere(tmp_path, "work/char_chunk.py")
    moved = alice.with_name("alice_moved")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            alice.rename(moved)
            alice.symlink_to(elsewhere)
            time.sleep(0.0002)
            alice.unlink()
            moved.rename(alice)
            time.sleep(0.0002)

    swapper = threading.Thread(target=swap, daemon=True)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # the swaps fall between any two steps of the reading
    request.addfinalizer(lambda: sys.setswitchinterval(switch))
    swapper.start()
    outcomes: set[str] = set()
    try:
        for _ in range(400):
            try:
                source = read_submission(alice, "char_chunk")
            except SubmissionError as error:
                outcomes.add(error.kind)
                continue
            code = "".join(cell.source for cell in source.cells)
            outcomes.add("stub" if code == STUB else code[:60])
    finally:
        stop.set()
        swapper.join()
    assert outcomes <= {"stub", "unsafe_path", "unreadable"}


def test_a_file_swapped_for_a_link_after_the_listing_is_refused(tmp_path):
    alice, elsewhere, file = student_and_elsewhere(tmp_path, "char_chunk.py")
    with OpenFolder(alice) as opened:
        assert opened.files() == [file]
        file.unlink()
        file.symlink_to(elsewhere / "char_chunk.py")
        with pytest.raises(SubmissionError, match="char_chunk.py is a symbolic link"):
            opened.read(file, 1 << 20)


def test_a_folder_nested_deeper_than_the_limit_is_refused_with_few_handles_open(
    tmp_path, monkeypatch, request
):
    alice = tmp_path / "alice"
    alice.mkdir()
    (alice / "char_chunk.py").write_text(SOLUTION)
    nested(alice, 1_100)  # deeper than a path may be long: only handles reach the bottom
    request.addfinalizer(lambda: unnest(alice))
    opened_now = 0
    most_open = 0
    real_open, real_dup, real_close = os.open, os.dup, os.close

    def counted(opens: Any) -> Any:
        def opened(*args: Any, **kwargs: Any) -> int:
            nonlocal opened_now, most_open
            fd = opens(*args, **kwargs)
            opened_now += 1
            most_open = max(most_open, opened_now)
            return fd

        return opened

    def counted_close(fd: int) -> None:
        nonlocal opened_now
        opened_now -= 1
        real_close(fd)

    monkeypatch.setattr(folder_module.os, "open", counted(real_open))
    monkeypatch.setattr(folder_module.os, "dup", counted(real_dup))
    monkeypatch.setattr(folder_module.os, "close", counted_close)
    with pytest.raises(SubmissionError) as raised:
        read_submission(alice)
    assert (raised.value.kind, str(raised.value)) == (
        "unreadable",
        f"the folder alice holds folders nested more than {MOST_FOLDER_DEPTH} deep; "
        "hand in only your solution",
    )
    assert most_open <= MOST_FOLDER_DEPTH + 2
    assert opened_now == 0  # every handle closed


def test_a_folder_as_deep_as_the_limit_is_read(tmp_path):
    alice = tmp_path / "alice"
    alice.mkdir()
    nested(alice, MOST_FOLDER_DEPTH)
    deepest = alice.joinpath(*["d"] * MOST_FOLDER_DEPTH)
    (deepest / "char_chunk.py").write_text(SOLUTION)
    source = read_submission(alice)
    assert (source.path, [cell.source for cell in source.cells]) == (
        deepest / "char_chunk.py",
        [SOLUTION],
    )


def test_too_many_entries_are_refused_before_all_are_read(tmp_path):
    alice = tmp_path / "alice"
    alice.mkdir()
    (alice / "char_chunk.py").write_text(SOLUTION)
    for number in range(30):
        (alice / f"note{number}.txt").touch()
    with OpenFolder(alice, most_entries=20) as opened:
        with pytest.raises(SubmissionError, match="the folder alice holds more than 20 files"):
            opened.files()
