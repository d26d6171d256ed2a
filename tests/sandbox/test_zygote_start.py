"""The zygote starts while the grading process works on: its code is handed over at once,
compiled once per kit."""

from __future__ import annotations

import fcntl
import marshal
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from types import CodeType

import pytest

from chunklab.sandbox import zygote_code
from chunklab.sandbox.zygote import SANDBOX_DIR, write_without_waiting
from chunklab.sandbox.zygote_code import CODE_NAMES, compiled_source


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="a pipe's size is Linux's")
def test_the_zygote_code_goes_into_its_pipe_without_waiting_for_a_reader():
    read_end, write_end = os.pipe()
    data = b"x" * 200_000  # past a pipe's usual 64 KB, as the zygote's code is
    writer = threading.Thread(
        target=write_without_waiting, args=(os.fdopen(write_end, "wb"), data), daemon=True
    )
    writer.start()
    writer.join(10)
    finished_unread = not writer.is_alive()
    with os.fdopen(read_end, "rb") as reader:
        assert reader.read() == data
    assert finished_unread


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compiled_source.cache_clear()
    yield tmp_path / "chunklab" / "sandbox"
    compiled_source.cache_clear()


def code_objects(code: CodeType) -> Iterator[CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from code_objects(constant)


def compiled_again(*args: object, **kwargs: object) -> None:
    pytest.fail("compiled again")


def test_the_zygote_code_is_compiled_once_and_kept(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    worker_source = SANDBOX_DIR / "worker_main.py"
    code = compiled_source(worker_source)
    [kept] = fresh_cache.glob("worker_main-*.marshal")
    compiled_source.cache_clear()
    monkeypatch.setattr(zygote_code, "compile", compiled_again, raising=False)
    assert compiled_source(worker_source) == code
    assert kept.read_bytes().endswith(code)


def test_the_zygote_code_names_no_path_of_this_machine(fresh_cache: Path):
    # A traceback in a worker shows these names; the grader's folders stay unseen.
    for stem, name in CODE_NAMES.items():
        code = marshal.loads(compiled_source(SANDBOX_DIR / f"{stem}.py"))
        assert {each.co_filename for each in code_objects(code)} == {name}


def test_damaged_kept_zygote_code_is_compiled_again(fresh_cache: Path):
    source = SANDBOX_DIR / "confinement_main.py"
    code = compiled_source(source)
    [kept] = fresh_cache.glob("confinement_main-*.marshal")
    damaged = bytearray(kept.read_bytes())
    damaged[-1] ^= 0xFF
    kept.write_bytes(bytes(damaged))
    compiled_source.cache_clear()
    assert compiled_source(source) == code
    assert kept.read_bytes().endswith(code)


def test_zygote_code_without_a_writable_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # no folder can be made under a file, even by root
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    compiled_source.cache_clear()
    try:
        code = marshal.loads(compiled_source(SANDBOX_DIR / "allow_list_main.py"))
        assert code.co_filename == "chunklab_allow_list"
    finally:
        compiled_source.cache_clear()
