"""What a worker may read: worked out by the zygote from its own interpreter, nothing else.

Like `zygote_main.py`, this runs in the zygote as source text (standard
library only), before it leaves the machine's file system.

A worker is given an allow-list, never the machine minus what looks secret:
the interpreter's executable and its dynamic loader; every shared library
that it, or an extension module of the standard library, needs (read from
their ELF headers, found where the loader looks: their run paths, the
loader's cache, the usual folders); the files the zygote has mapped (the
locale it runs in); the loader's cache itself; and the standard library's
own folders, with their `site-packages` and `dist-packages` children held
back. Each symbolic link met on the way to one of these is kept as a link,
so the loader finds a library by the name it knows it by. A kit, a venv or
a class folder anywhere else (under `/usr` too) is not on the list.
"""

import os
import struct
import sys

LOADER_CACHE = "/etc/ld.so.cache"
CACHE_MAGIC = b"glibc-ld.so.cache1.1"
# Where the loader looks when neither a run path nor its cache names a library.
DEFAULT_FOLDERS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
PACKAGE_FOLDERS = ("site-packages", "dist-packages")
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH = 1, 5, 10, 15, 29
MAX_STRINGS = 1 << 20
MAX_LINKS = 40


class Elf:
    """What the loader needs to know of one ELF file: its machine, libraries and interpreter."""

    def __init__(self, path):
        self.path = path
        self.machine = None
        self.needed = []
        self.search = []
        self.interpreter = ""
        try:
            with open(path, "rb") as handle:
                self._read(handle)
        except (OSError, struct.error, ValueError):
            self.machine = None

    def _read(self, handle):
        header = handle.read(64)
        if len(header) < 52 or header[:4] != b"\x7fELF":
            return
        wide, order = header[4] == 2, "<" if header[5] == 1 else ">"
        self.machine = (header[4], struct.unpack_from(order + "H", header, 18)[0])
        if wide:
            table_at = struct.unpack_from(order + "Q", header, 32)[0]
            entry_size, count = struct.unpack_from(order + "HH", header, 54)
        else:
            table_at = struct.unpack_from(order + "I", header, 28)[0]
            entry_size, count = struct.unpack_from(order + "HH", header, 42)
        handle.seek(table_at)
        table = handle.read(entry_size * count)
        loads, dynamic = [], None
        for n in range(count):
            if wide:
                kind, _, offset, address, _, size = struct.unpack_from(
                    order + "IIQQQQ", table, n * entry_size
                )
            else:
                kind, offset, address, _, size, _ = struct.unpack_from(
                    order + "IIIIII", table, n * entry_size
                )
            if kind == PT_LOAD:
                loads.append((address, offset, size))
            elif kind == PT_DYNAMIC:
                dynamic = (offset, size)
            elif kind == PT_INTERP:
                handle.seek(offset)
                self.interpreter = handle.read(min(size, 4096)).split(b"\0")[0].decode()
        if dynamic is not None:
            self._read_dynamic(handle, order, wide, loads, dynamic)

    def _read_dynamic(self, handle, order, wide, loads, dynamic):
        handle.seek(dynamic[0])
        data = handle.read(min(dynamic[1], MAX_STRINGS))
        shape = order + ("qQ" if wide else "iI")
        step = struct.calcsize(shape)
        ends = range(0, len(data) - step + 1, step)
        entries = [struct.unpack_from(shape, data, at) for at in ends]
        values = {}
        for tag, value in entries:
            if tag == 0:
                break
            values.setdefault(tag, []).append(value)
        table = next(iter(values.get(DT_STRTAB, [])), -1)
        size = min(next(iter(values.get(DT_STRSZ, [])), 0), MAX_STRINGS)
        offset = next((off + table - at for at, off, n in loads if at <= table < at + n), None)
        if offset is None:
            return
        handle.seek(offset)
        strings = handle.read(size)

        def text(at):
            return strings[at : strings.find(b"\0", at)].decode(errors="replace")

        self.needed = [text(at) for at in values.get(DT_NEEDED, [])]
        # The loader reads RPATH only where there is no RUNPATH.
        paths = values.get(DT_RUNPATH) or values.get(DT_RPATH) or []
        origin = os.path.dirname(self.path)
        for at in paths:
            for folder in text(at).split(":"):
                folder = folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
                if folder:
                    self.search.append(folder)


def cached_libraries():
    """The loader's cache: each library name and the paths it gives for it."""
    try:
        with open(LOADER_CACHE, "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    start = data.find(CACHE_MAGIC)
    if start < 0:
        return {}
    count = struct.unpack_from("<I", data, start + 20)[0]
    found = {}
    for n in range(min(count, (len(data) - start - 48) // 24)):
        _, key, value, _, _ = struct.unpack_from("<iIIIQ", data, start + 48 + 24 * n)
        name = data[key : data.find(b"\0", key)].decode(errors="replace")
        path = data[value : data.find(b"\0", value)].decode(errors="replace")
        found.setdefault(name, []).append(path)
    return found


def libraries_needed(first, cache):
    """Every ELF file `first` need, theirs included, found where the loader would look."""
    seen, waiting, read = {}, list(first), {}

    def elf_of(path):
        # Most extension modules need the same few libraries: each file is read once.
        if path not in read:
            read[path] = Elf(path)
        return read[path]

    while waiting:
        path = waiting.pop()
        if path in seen:
            continue
        seen[path] = elf = elf_of(path)
        if elf.interpreter:
            waiting.append(elf.interpreter)
        for name in elf.needed:
            if "/" in name:
                waiting.append(name)
                continue
            places = [os.path.join(folder, name) for folder in elf.search]
            places += cache.get(name, [])
            places += [os.path.join(folder, name) for folder in DEFAULT_FOLDERS]
            match = next((p for p in places if elf_of(p).machine == elf.machine), None)
            if match is not None:
                waiting.append(match)
    return [path for path, elf in seen.items() if elf.machine is not None]


def resolve(path, links):
    """The real path `path` names; each symbolic link met on the way goes into `links`."""
    parts, current, hops = path.split("/"), "/", 0
    while parts:
        name = parts.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        if not os.path.islink(candidate):
            current = candidate
            continue
        hops += 1
        if hops > MAX_LINKS:
            return None
        target = os.readlink(candidate)
        links[candidate] = target
        if target.startswith("/"):
            current = "/"
        parts = target.split("/") + parts
    return current if os.path.exists(current) else None


def mapped_files():
    """The regular files this process has mapped: libraries, the locale it runs in."""
    try:
        with open("/proc/self/maps") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    paths = {line.split(None, 5)[5] for line in lines if len(line.split(None, 5)) == 6}
    return sorted(path for path in paths if path.startswith("/") and os.path.isfile(path))


def standard_library():
    """The standard library's folders (this interpreter runs with `-I -S`: they are its path)."""
    return [os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)]


def allow_list():
    """What a worker may read: links to keep, folders and files to show, folders held back."""
    folders = list(dict.fromkeys(standard_library()))
    hidden = [
        os.path.join(folder, name)
        for folder in folders
        for name in PACKAGE_FOLDERS
        if os.path.isdir(os.path.join(folder, name))
    ]
    extensions = [
        os.path.join(folder, name)
        for folder in folders
        for name in sorted(os.listdir(folder))
        if name.endswith(".so")
    ]
    mapped = mapped_files()
    first = [sys.executable, *extensions, *mapped]
    wanted = [*libraries_needed(first, cached_libraries()), *mapped, LOADER_CACHE]
    links, files = {}, []
    for path in wanted:
        real = resolve(path, links)
        inside = any(real == f or real.startswith(f + "/") for f in folders) if real else True
        if real is not None and not inside and os.path.isfile(real):
            files.append(real)
    return {
        "links": sorted(links.items()),
        "folders": folders,
        "files": sorted(set(files)),
        "hidden": hidden,
    }
