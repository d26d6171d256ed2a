"""The student's own modules beside the graded file: found, read within the size limit, sent.

The size limit (`--max-submission-kb`) counts everything sent to the worker:
the graded file's code and its helper modules together. Helpers are read in
turn against what the limit leaves, so a folder of large modules is refused
after at most the limit's bytes, and never fills the grader's memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from chunklab.errors import SubmissionError, SubmissionTooLargeError
from chunklab.lessons import lesson_named_in
from chunklab.reading.folder import OpenFolder
from chunklab.reading.source import CodeCell, LeftBehind
from chunklab.reading.student import (
    helper_files,
    helper_packages,
    modules_beside,
    regular_files,
)
from chunklab.scoring.report import Problem

HELPERS_LABEL = "helper modules"
WARNING_KIND = "helper_skipped"
# Files named in a too-large message: the largest ones.
NAMED_FILES = 5


@dataclass(frozen=True)
class Helpers:
    """The cell that installs the helper modules, their names, and those that could not be read."""

    cells: tuple[CodeCell, ...] = ()
    modules: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()
    # The student's modules beside the graded file that do not travel with it.
    left_behind: tuple[LeftBehind, ...] = ()


def imports(code: str, module: str) -> bool:
    """Whether a line of `code` imports `module` (a quick look at the text, never a parse)."""
    name = re.escape(module)
    pattern = rf"^[ \t]*(?:from[ \t]+{name}\b|import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*{name}\b)"
    return re.search(pattern, code, re.MULTILINE) is not None


def left_behind(files: list[Path], graded: Path, code: str) -> list[LeftBehind]:
    """The modules beside `graded` that are not handed to its code: packages, and files
    named for a lesson (each is that lesson's file, not a helper)."""
    found = [
        LeftBehind(
            name,
            f"{name}/ is a package (a folder of modules); only single .py files beside "
            f"{graded.name} are handed to your code, so `import {name}` fails when graded: "
            f"put what your solution needs from it into {name}.py beside {graded.name}",
        )
        for name in helper_packages(files, graded)
    ]
    for path in modules_beside(files, graded):
        lesson = lesson_named_in(path.name)
        if lesson is not None and imports(code, path.stem):
            found.append(
                LeftBehind(
                    path.stem,
                    f"{path.name} is named for the lesson {lesson.id}, so it is taken for "
                    f"that lesson's file and not handed to the code of {graded.name} as a "
                    f"module; `import {path.stem}` fails when graded: rename it (to a name "
                    "without a lesson id, such as tools.py) and import it by that name",
                )
            )
    return found


def read_helpers(
    folder: OpenFolder, graded: Path, code_bytes: int, limit: int, code: str = ""
) -> Helpers:
    """The helpers beside `graded`, whose code (`code_bytes`) leaves `limit - code_bytes` bytes.

    They are read through the folder's handle, as the graded file was. `code` is
    the graded file's code: a module it imports that does not travel is said why.
    """
    files = regular_files(folder)  # listed once: every look below reads it
    paths = helper_files(files, graded)
    sources: dict[str, tuple[str, str]] = {}
    # Only single modules no lesson claims travel with the graded file; the import of
    # another would fail as if it were from outside the standard library: it is said why.
    behind = tuple(left_behind(files, graded, code))
    warnings = [Problem(WARNING_KIND, module.why) for module in behind]
    used = code_bytes
    for path in paths:
        try:
            raw = folder.read(path, max(limit - used, 0))
        except SubmissionError as error:
            warnings.append(
                Problem(WARNING_KIND, f"{path.name} cannot be imported by your code: {error}")
            )
            continue
        used += len(raw)
        if used > limit:
            raise too_large_with_helpers(folder, graded, paths, limit)
        sources[path.stem] = (path.name, raw.decode("utf-8", errors="replace"))
    if not sources:
        return Helpers(warnings=tuple(warnings), left_behind=behind)
    cell = CodeCell(index=-1, label=HELPERS_LABEL, source=HELPERS_CELL % (sources,))
    return Helpers((cell,), tuple(sources), tuple(warnings), behind)


def too_large_with_helpers(
    folder: OpenFolder, graded: Path, helpers: list[Path], limit: int
) -> SubmissionTooLargeError:
    size_of = folder.size_of  # as listed: no path is looked up again
    by_size = sorted(helpers, key=lambda path: (-size_of(path), path.name))
    named = ", ".join(f"{path.name} ({size_of(path):,} bytes)" for path in by_size[:NAMED_FILES])
    more = f" and {len(helpers) - NAMED_FILES} more" if len(helpers) > NAMED_FILES else ""
    return SubmissionTooLargeError(
        f"the code in {graded.name} and the {len(helpers)} helper module(s) beside it "
        f"({named}{more}) hold more than {limit:,} bytes together, the most a submission's "
        "code, its helper modules included, may hold (the grader's --max-submission-kb); "
        "hand in only your solution and the modules it imports"
    )


HELPERS_CELL = '''\
def __chunklab_install_helpers(sources):
    import importlib.abc
    import importlib.util
    import sys

    class HelperModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """The student's own modules, imported from the source handed in with the lesson."""

        def find_spec(self, name, path=None, target=None):
            if name in sources:
                return importlib.util.spec_from_loader(name, self, origin=sources[name][0])
            return None

        def exec_module(self, module):
            label, source = sources[module.__name__]
            module.__file__ = label
            exec(compile(source, label, "exec"), module.__dict__)

    sys.meta_path.insert(0, HelperModules())


__chunklab_install_helpers(%r)
del __chunklab_install_helpers
'''
