"""The student bundle: stubs, notebooks, the self-check engine with its public checks, a README.

What goes in is chosen file by file from the kit: the engine's modules listed
in the manifest (`student_side.txt`) and, of each lesson's grader suite, the
tests marked visible. Reference solutions are never read here.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from string import Template

from chunklab import __version__
from chunklab.authoring.build_notebooks import build_notebook, notebook_text
from chunklab.authoring.visible_suite import visible_sources
from chunklab.errors import KitLayoutError
from chunklab.kit import PACKAGE_DIR, Kit, suite_dir
from chunklab.lessons import LESSONS
from chunklab.suites.kept_inputs import INPUTS_FILE

# Written at the top of every bundle, so a later release may replace an earlier one.
MARKER_FILE = ".chunklab-release"
README_TEMPLATE = Path(__file__).resolve().parent / "student_readme.md"
# The one list of the package's files that go to students (patterns, package-relative).
MANIFEST = Path(__file__).resolve().parent / "student_side.txt"
NOTEBOOK_EXTRA = ("jupyterlab>=4", "ipykernel>=6.25")

PYPROJECT = Template("""\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "chunklab"
version = "$version"
description = "Chunking exercises for RAG, with their self-check."
readme = "README.md"
requires-python = ">=3.10"
dependencies = [
$dependencies]

[project.optional-dependencies]
notebook = [
$notebook]

[project.scripts]
chunklab = "chunklab.cli:student_main"

[tool.setuptools.packages.find]
where = ["graders"]

[tool.setuptools.package-data]
chunklab = ["**/*.json", "**/*.md", "**/*.ini"]
""")


def kit_dependencies(kit: Kit) -> list[str]:
    """The kit's own runtime dependencies (its pyproject's `dependencies` list)."""
    text = (kit.root / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies\s*=\s*\[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    if block is None:
        return []
    return re.findall(r'^\s*"([^"]+)"', block.group(1), re.MULTILINE)


def toml_list(items: list[str] | tuple[str, ...]) -> str:
    return "".join(f'    "{item}",\n' for item in items)


def pyproject_text(kit: Kit) -> str:
    return PYPROJECT.substitute(
        version=__version__,
        dependencies=toml_list(kit_dependencies(kit)),
        notebook=toml_list(NOTEBOOK_EXTRA),
    )


def readme_text() -> str:
    lessons = "\n".join(
        f"{number}. `{lesson.id}`: {lesson.title}"
        for number, lesson in enumerate(LESSONS.values(), start=1)
    )
    template = Template(README_TEMPLATE.read_text(encoding="utf-8"))
    return template.substitute(count=len(LESSONS), lessons=lessons)


def manifest_files(manifest: Path = MANIFEST) -> list[Path]:
    """The package files the manifest names; a pattern that names nothing is a mistake in it."""
    found: set[Path] = set()
    for line in manifest.read_text(encoding="utf-8").splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        matched = [path for path in PACKAGE_DIR.glob(pattern) if path.is_file()]
        if not matched:
            raise KitLayoutError(f"{manifest.name} names {pattern!r}, which is no file of chunklab")
        if hidden := [path for path in matched if path.name == INPUTS_FILE]:
            raise KitLayoutError(
                f"{manifest.name} names {pattern!r}, which takes in the hidden inputs "
                f"{hidden[0]}; the student bundle holds what the visible tests need, never them"
            )
        found.update(matched)
    return sorted(found)


def copy_engine(dest: Path) -> None:
    package = dest / "graders" / "chunklab"
    for path in manifest_files():
        target = package / path.relative_to(PACKAGE_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    for lesson in LESSONS.values():
        folder = package / suite_dir(lesson).relative_to(PACKAGE_DIR)
        for name, source in visible_sources(lesson).items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(source, encoding="utf-8")


def write_bundle(kit: Kit, dest: Path) -> list[Path]:
    """Write the bundle into the empty folder `dest`; returns the files written."""
    (dest / "exercises").mkdir(parents=True)
    (dest / "notebooks").mkdir()
    for lesson in LESSONS.values():
        shutil.copyfile(kit.exercise(lesson), dest / "exercises" / lesson.file_name)
        # Built from the same sources as the committed notebook, so the two cannot differ.
        notebook = notebook_text(build_notebook(lesson, kit))
        (dest / "notebooks" / f"{lesson.id}.ipynb").write_text(notebook, encoding="utf-8")
    copy_engine(dest)
    (dest / "README.md").write_text(readme_text(), encoding="utf-8")
    (dest / "pyproject.toml").write_text(pyproject_text(kit), encoding="utf-8")
    (dest / MARKER_FILE).write_text(
        json.dumps({"chunklab_release": __version__, "lessons": list(LESSONS)}) + "\n",
        encoding="utf-8",
    )
    return sorted(path for path in dest.rglob("*") if path.is_file())


def is_release(folder: Path) -> bool:
    return (folder / MARKER_FILE).is_file()
