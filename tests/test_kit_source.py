"""The kit never comes from the class: a class folder cannot provide a reference solution.

chunklab installed without its kit around it (as a wheel installs it) and
run from a class folder that holds student-made `solutions/` and
`exercises/`: the command refuses, saying how to install the kit, and no
file of the class runs in the grading process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from chunklab.kit import PACKAGE_DIR, Kit, find_kit
from tests.conftest import KIT_ROOT

FORGED_REFERENCE = """
import pathlib
pathlib.Path(__file__).with_name("ran.txt").write_text("run in the grading process")

def chunk(text, size, overlap):
    return []
"""


def test_the_kit_is_the_checkout_the_package_is_in(monkeypatch, tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "exercises").mkdir()
    monkeypatch.chdir(tmp_path)
    assert find_kit() == Kit(KIT_ROOT)


def test_a_class_folder_with_solutions_never_provides_the_reference(tmp_path):
    installed = tmp_path / "site-packages"
    shutil.copytree(PACKAGE_DIR, installed / "chunklab", ignore=shutil.ignore_patterns("*.pyc"))
    lesson_class = tmp_path / "class"
    for folder in ("solutions", "exercises"):
        (lesson_class / folder).mkdir(parents=True)
        (lesson_class / folder / "char_chunk.py").write_text(FORGED_REFERENCE)
    submission = "def chunk(text, size, overlap):\n    return []\n"
    (lesson_class / "alice_char_chunk.py").write_text(submission)
    done = subprocess.run(
        [sys.executable, "-m", "chunklab", "grade", "alice_char_chunk.py"],
        cwd=lesson_class,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert "are not beside this chunklab package" in done.stderr
    assert "pip install -e ." in done.stderr
    assert not (lesson_class / "solutions" / "ran.txt").exists()
    assert not (lesson_class / "exercises" / "ran.txt").exists()
