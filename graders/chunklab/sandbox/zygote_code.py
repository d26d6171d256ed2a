"""The zygote's standalone sources, compiled once per kit and Python, not at every start.

The zygote runs with `-B` and receives its code on stdin, so Python keeps no
bytecode of it: compiling the four sources took a seventh of its start. Each
compiled source is kept in the kit's cache folder, named by a digest of the
source and of the interpreter, and checked against a digest of its own when
read; anything else (a read-only cache, a damaged file) is compiled afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import sys
from functools import cache
from pathlib import Path

from chunklab.kit import cache_dir
from chunklab.kit_texts import write_atomically

# A code object's file name, as a traceback in a worker shows it: no path of this machine.
CODE_NAMES = {
    "zygote_main": "chunklab_zygote",
    "worker_main": "chunklab_worker",
    "confinement_main": "chunklab_confinement",
    "allow_list_main": "chunklab_allow_list",
}
DIGEST_SIZE = 16


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


@cache
def compiled_source(path: Path) -> bytes:
    """The source file `path` compiled for this interpreter, as `marshal` writes it."""
    source = path.read_bytes()
    name = CODE_NAMES[path.stem]
    # The interpreter's version and bytecode format: another Python compiles anew.
    key = digest(source + f"{name}\0{sys.version}\0{marshal.version}".encode()).hex()
    cached = cache_dir() / "sandbox" / f"{path.stem}-{key}.marshal"
    with contextlib.suppress(OSError):
        data = cached.read_bytes()
        if digest(data[DIGEST_SIZE:]) == data[:DIGEST_SIZE]:
            return data[DIGEST_SIZE:]
    code = marshal.dumps(compile(source, name, "exec", dont_inherit=True))
    with contextlib.suppress(OSError):  # a read-only cache: compiled again next time
        write_atomically(cached, digest(code) + code)
    return code
