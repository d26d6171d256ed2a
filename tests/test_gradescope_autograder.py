"""The Gradescope autograder: built, installed by its own setup.sh, run on four submissions.

The zip is installed once, into a fresh virtual environment under a temporary
root (AUTOGRADER_ROOT), the way Gradescope's image build runs setup.sh; the
wheels come from the package index pip is set up with.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.autograder.build import CONFIG_NAME, KIT_FOLDER
from chunklab.autograder.run import KIT_FAILED, run
from chunklab.cli import main
from chunklab.errors import SubmissionError
from chunklab.reading.read import read_submission

KIT_ROOT = Path(__file__).resolve().parent.parent
SCHEMA = KIT_ROOT / "graders" / "chunklab" / "writing" / "gradescope.schema.json"
LESSON = "char_chunk"
CORRECT = (KIT_ROOT / "solutions" / f"{LESSON}.py").read_text()
BUGGY = (KIT_ROOT / "solutions" / "mistakes" / LESSON / "no_early_stop.py").read_text()


@pytest.fixture(scope="module")
def gradescope_schema() -> dict[str, Any]:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An autograder root with the zip unpacked in source/ and setup.sh run."""
    root = tmp_path_factory.mktemp("autograder")
    archive = root / "autograder.zip"
    cwd = Path.cwd()
    os.chdir(KIT_ROOT)
    try:
        # A relative destination, as the README's example gives it.
        relative = os.path.relpath(archive, KIT_ROOT)
        assert main(["gradescope", LESSON, relative, "--stdout-visibility", "hidden"]) == 0
    finally:
        os.chdir(cwd)
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        assert {"setup.sh", "run_autograder"} <= set(names)
        assert [n for n in names if n.endswith(".whl")]
        assert not [n for n in names if "/" in n and not n.startswith("kit/")]
        opened.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):
        (root / "source" / script).chmod(0o755)  # zipfile does not restore modes
    done = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")],
        env=autograder_env(root),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (root / "venv" / "bin" / "python").is_file()
    return root


def autograder_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # python3 on PATH is this interpreter's, as Ubuntu's would be on Gradescope.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["AUTOGRADER_ROOT"] = str(root)
    return env


def run_autograder(root: Path, files: dict[str, str], metadata: dict | None = None) -> dict:
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    for name, text in files.items():
        (submission / name).write_text(text)
    (root / "submission_metadata.json").unlink(missing_ok=True)
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    done = subprocess.run(
        [str(root / "source" / "run_autograder")],
        env=autograder_env(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text())


def buggy_notebook() -> str:
    return notebook_text(submission_notebook(LESSON, BUGGY))


def full_marks(results: dict) -> float:
    return sum(test["max_score"] for test in results["tests"])


def test_four_submissions_each_get_a_valid_results_json(installed, gradescope_schema):
    metadata = {"id": 987654, "users": [{"name": "Ada L", "email": "ada@uni.example", "id": 5}]}
    correct = run_autograder(installed, {"my_answer.py": CORRECT}, metadata)
    notebook = run_autograder(installed, {"homework.ipynb": buggy_notebook()})
    both = run_autograder(
        installed,
        {f"{LESSON}.py": CORRECT, f"{LESSON}.ipynb": buggy_notebook(), "notes.py": "x = 1\n"},
    )
    broken = run_autograder(installed, {"char_chunk.py": "def chunk(text, size, overlap)\n"})
    for results in (correct, notebook, both, broken):
        jsonschema.validate(results, gradescope_schema)

    assert correct["score"] == full_marks(correct) > 0
    assert {t["status"] for t in correct["tests"]} == {"passed"}
    assert correct["extra_data"]["student"] == "Ada L"
    assert correct["extra_data"]["submission_id"] == "987654"
    assert correct["output"].startswith("Graded my_answer.py as the lesson char_chunk.")
    assert correct["stdout_visibility"] == "hidden"
    numbers = [t["number"] for t in correct["tests"]]
    assert len(set(numbers)) == len(numbers)
    assert all(t["tags"] for t in correct["tests"])
    assert {t["visibility"] for t in correct["tests"]} == {"visible", "after_published"}

    assert 0 < notebook["score"] < full_marks(notebook)
    failed = [t for t in notebook["tests"] if t["status"] == "failed"]
    # A public check shows its input; by default a hidden one shows only its rule (its
    # name): no hidden input reaches students.
    visible = [t for t in failed if t["visibility"] == "visible"]
    hidden = [t for t in failed if t["visibility"] == "after_published"]
    assert visible and all(t["output"].startswith("Input: ") for t in visible)
    assert hidden and all(t["output"] == "" for t in hidden)

    assert both["score"] == full_marks(both)
    assert both["output"].startswith(
        f"Graded {LESSON}.py as the lesson {LESSON}. Not graded: {LESSON}.ipynb, notes.py."
    )

    assert broken["score"] == 0
    assert broken["tests"] == []
    assert "Python cannot read your file" in broken["output"]


def set_up_root(root: Path) -> Path:
    """An autograder root whose source/ holds the configuration and (a link to) this kit."""
    (root / "source").mkdir(parents=True)
    config = {"lesson": LESSON, "hidden_visibility": "visible", "stdout_visibility": "hidden"}
    (root / "source" / CONFIG_NAME).write_text(json.dumps(config))
    (root / "source" / KIT_FOLDER).symlink_to(KIT_ROOT, target_is_directory=True)
    (root / "submission").mkdir()
    (root / "submission" / f"{LESSON}.py").write_text(CORRECT)
    return root / "submission"


@pytest.mark.parametrize("spoil", ["a link", "too many files"])
def test_a_submission_the_reader_refuses_is_the_students_error_in_a_local_runs_words(
    tmp_path, gradescope_schema, spoil
):
    submission = set_up_root(tmp_path)
    if spoil == "a link":
        (submission / "notes.py").symlink_to(KIT_ROOT / "solutions" / f"{LESSON}.py")
    else:
        for number in range(10_001):
            (submission / f"n{number}").touch()
    with pytest.raises(SubmissionError) as local:
        read_submission(submission, LESSON)
    results = run(tmp_path)
    jsonschema.validate(results, gradescope_schema)
    assert results["score"] == 0
    assert results["output"].endswith(f":\n{local.value}")
    assert KIT_FAILED not in results["output"]


def test_results_json_is_written_when_the_kit_itself_fails(tmp_path, gradescope_schema):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "char_chunk.py").write_text(CORRECT)
    # No source/ folder: the autograder was never set up.
    results = run(tmp_path)
    jsonschema.validate(results, gradescope_schema)
    assert (results["score"], results["output"]) == (0, KIT_FAILED)
    # And when Python itself cannot start the kit, run_autograder still writes one.
    script = KIT_ROOT / "graders" / "chunklab" / "autograder" / "run_autograder"
    env = {**os.environ, "AUTOGRADER_ROOT": str(tmp_path), "CHUNKLAB_VENV": str(tmp_path / "no")}
    subprocess.run(["bash", str(script)], env=env, capture_output=True, timeout=60, check=True)
    fallback = json.loads((tmp_path / "results" / "results.json").read_text())
    jsonschema.validate(fallback, gradescope_schema)
    assert fallback["score"] == 0
    assert "tell your instructor" in fallback["output"]
