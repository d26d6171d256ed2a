"""The Gradescope autograder: built, installed by its own setup.sh, run on four submissions.

The zip is installed once, into a fresh virtual environment under a temporary
root (AUTOGRADER_ROOT), the way Gradescope's image build runs setup.sh; the
wheels come from the package index pip is set up with.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from chunklab.authoring.build_notebooks import notebook_text
from chunklab.authoring.submission_notebook import submission_notebook
from chunklab.autograder.build import CONFIG_NAME, KIT_FOLDER, SCRIPTS
from chunklab.autograder.run import KIT_FAILED, run
from chunklab.cli import main
from chunklab.errors import SubmissionError
from chunklab.lessons import LESSONS
from chunklab.reading.read import read_submission
from chunklab.report_out.gradescope import GradescopeOptions
from chunklab.sandbox.limits import Limits
from chunklab.sandbox.zygote import Zygote, ZygoteSettings
from chunklab.suites.digest import this_kit
from chunklab.suites.kept_inputs import INPUTS_FILE
from tests.conftest import LESSON_IDS
from tests.sandbox.sandbox_workers import Workers
from tests.sandbox.test_sandbox_file_system import PROBE

KIT_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = KIT_ROOT / "graders" / "chunklab" / "report_out" / "gradescope.schema.json"
LESSON = "char_chunk"
CORRECT = (KIT_ROOT / "solutions" / f"{LESSON}.py").read_text()
MISTAKES = KIT_ROOT / "solutions" / "mistakes" / LESSON
BUGGY = (MISTAKES / "no_early_stop.py").read_text()


@pytest.fixture(scope="module")
def gradescope_schema() -> dict[str, Any]:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """An autograder root with the zip unpacked in source/ and setup.sh run.

    Like /autograder, anyone may pass through it: only the modes setup.sh sets keep
    what is in it from a submission.
    """
    root = Path(tempfile.mkdtemp(prefix="chunklab-autograder-"))
    root.chmod(0o755)
    try:
        yield set_up(root)
    finally:
        shutil.rmtree(root)


def set_up(root: Path) -> Path:
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
    assert f"suites {this_kit().suites}" in done.stdout
    return root


def autograder_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # python3 on PATH is this interpreter's, as Ubuntu's would be on Gradescope.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["AUTOGRADER_ROOT"] = str(root)
    return env


def run_autograder(root: Path, files: dict[str, str], metadata: dict | None = None) -> dict:
    return results_and_report(root, files, metadata)[0]


def results_and_report(
    root: Path, files: dict[str, str], metadata: dict | None = None
) -> tuple[dict, str]:
    """results.json, and what run_autograder printed for the instructor (the grade report)."""
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
    return json.loads((root / "results" / "results.json").read_text()), done.stdout


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
    # name) and, where the kit found one, an input of its own to try: no hidden input
    # reaches students.
    visible = [t for t in failed if t["visibility"] == "visible"]
    hidden = [t for t in failed if t["visibility"] == "after_published"]
    assert visible and all(t["output"].startswith("Input: ") for t in visible)
    assert hidden and all(t["output"] == "" or t["output"].startswith("Try: ") for t in hidden)
    assert not any("Input: " in t["output"] for t in hidden)

    assert both["score"] == full_marks(both)
    assert both["output"].startswith(
        f"Graded {LESSON}.py as the lesson {LESSON}. Not graded: {LESSON}.ipynb, notes.py."
    )

    assert broken["score"] == 0
    assert broken["tests"] == []
    assert "Python cannot read your file" in broken["output"]
    for results in (correct, notebook, both, broken):
        assert results["extra_data"]["kit"] == asdict(this_kit())


def test_the_zip_installs_the_hidden_inputs_it_was_built_with_and_no_hypothesis(installed):
    config = json.loads((installed / "source" / CONFIG_NAME).read_text())
    assert config["kit"] == asdict(this_kit())
    [wheel] = (installed / "source").glob("chunklab-*.whl")
    with zipfile.ZipFile(wheel) as opened:
        requires = opened.read(next(n for n in opened.namelist() if n.endswith("METADATA")))
        for lesson in LESSON_IDS:
            kept = LESSONS[lesson].folder / INPUTS_FILE
            assert opened.read(f"chunklab/suites/{lesson}/{INPUTS_FILE}") == kept.read_bytes()
    # Hypothesis is asked for by the test extra alone, and setup.sh did not install it.
    assert [line for line in requires.decode().splitlines() if "hypothesis" in line] == [
        'Requires-Dist: hypothesis>=6.90; extra == "test"'
    ]
    python = installed / "venv" / "bin" / "python"
    found = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('hypothesis'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout == "None\n"


def test_an_autograder_running_other_suites_than_it_was_built_with_grades_nothing(
    tmp_path, gradescope_schema
):
    source = tmp_path / "source"
    (source / KIT_FOLDER / "solutions").mkdir(parents=True)
    (source / KIT_FOLDER / "solutions" / f"{LESSON}.py").write_text(CORRECT)
    other = {"version": this_kit().version, "suites": "sha256:" + "0" * 64}
    config = {"lesson": LESSON, **asdict(GradescopeOptions()), "kit": other}
    (source / CONFIG_NAME).write_text(json.dumps(config))
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / f"{LESSON}.py").write_text(CORRECT)
    results = run(tmp_path)
    jsonschema.validate(results, gradescope_schema)
    assert (results["score"], results["output"]) == (0, KIT_FAILED)
    error = results["extra_data"]["error"]
    assert error.startswith("OtherSuitesInstalledError: ") and "build the zip again" in error
    assert other["suites"] in error and this_kit().suites in error


def set_up_root(root: Path) -> Path:
    """An autograder root whose source/ holds the configuration and (a link to) this kit."""
    (root / "source").mkdir(parents=True)
    config = {
        "lesson": LESSON,
        "hidden_visibility": "visible",
        "stdout_visibility": "hidden",
        "kit": asdict(this_kit()),
    }
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


# A small class of one lesson: right, right another way, wrong in public and hidden
# checks, wrong in hidden checks only (its random inputs among them), a stub, a file
# Python cannot read.
CLASS_FILES = {
    "reference": KIT_ROOT / "solutions" / f"{LESSON}.py",
    "alternative": KIT_ROOT / "solutions" / "alternatives" / LESSON / "counted_windows.py",
    "no_early_stop": MISTAKES / "no_early_stop.py",
    "examples_only": MISTAKES / "public_only_answers_the_examples.py",
    "zero_width": MISTAKES / "drops_zero_width_characters.py",
    "stub": KIT_ROOT / "exercises" / f"{LESSON}.py",
}


def same_everywhere(report: dict) -> dict:
    """What a deployment must not change: all but times, the machine's isolation, names."""
    return {
        k: v
        for k, v in report.items()
        if k not in ("duration_s", "isolation", "isolation_gaps", "submission", "student")
    }


def graded_report_of(root: Path, file: Path) -> tuple[dict, dict]:
    """results.json, and the grade report run_autograder prints for the instructor."""
    results, printed = results_and_report(root, {file.name: file.read_text()})
    report, _ = json.JSONDecoder().raw_decode(printed[printed.index("{\n") :])
    return results, report


def test_deployment_never_changes_a_score(installed, chunklab, tmp_path):
    from distributed import LocalCluster

    from chunklab.cluster.on_dask import grade_on_dask
    from chunklab.kit import Kit
    from chunklab.pipeline.parallel import grade_many
    from chunklab.reading.read import SubmissionPath
    from chunklab.report_out.gradescope import gradescope_results
    from chunklab.sandbox.limits import Limits
    from chunklab.scoring.feedback_policy import with_hidden_feedback
    from chunklab.scoring.report import GradeReport

    folder = tmp_path / "class"
    folder.mkdir()
    files = {name: shutil.copy(path, folder / f"{name}.py") for name, path in CLASS_FILES.items()}
    (folder / "broken.py").write_text("def chunk(text, size, overlap)\n")
    files["broken"] = folder / "broken.py"
    files = dict(sorted(files.items()))  # in the order grading a folder takes them
    items = [(i, SubmissionPath(path, path.name)) for i, path in enumerate(files.values())]
    kit, limits = Kit(KIT_ROOT), Limits()

    def shown(results) -> list[dict]:
        # The hidden tests as every deployment shows them by default: their rule only.
        pairs = sorted(results, key=lambda pair: pair[0])
        return [with_hidden_feedback(report, "rule").to_json() for _, report in pairs]

    here = shown(grade_many(items, LESSON, kit, limits, 1))
    with LocalCluster(
        n_workers=1, processes=True, threads_per_worker=1, dashboard_address=":0"
    ) as c:
        on_dask = shown(grade_on_dask(c.scheduler_address, items, LESSON, kit, limits, 1))
    command = chunklab("grade", "--lesson", LESSON, "--jsonl", folder)
    on_gradescope = [graded_report_of(installed, path) for path in files.values()]

    expected = [same_everywhere(report) for report in here]
    assert [r["score"] for r in expected] != [expected[0]["score"]] * len(expected)
    assert [same_everywhere(r) for r in on_dask] == expected
    assert [same_everywhere(r) for r in command.reports] == expected
    assert [same_everywhere(report) for _, report in on_gradescope] == expected
    for (results, _), report in zip(on_gradescope, here, strict=True):
        made_here = gradescope_results(GradeReport.from_json(report))
        assert (results["score"], results["tests"]) == (made_here["score"], made_here["tests"])
    # The visible part, as a student's `chunklab check` shows it.
    for path, report in zip(files.values(), here, strict=True):
        check = chunklab("check", LESSON, path, "--json")
        (mine,) = check.reports
        visible = [t for t in report["tests"] if t["visibility"] == "visible"]
        assert (mine["status"], mine["tests"]) == (report["status"], visible)
        assert mine["kit"] == report["kit"] == asdict(this_kit())


def test_the_zip_keeps_all_but_its_scripts_from_others(installed):
    with zipfile.ZipFile(installed / "autograder.zip") as opened:
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in opened.infolist()}
    assert {name: modes.pop(name) for name in SCRIPTS} == dict.fromkeys(SCRIPTS, 0o700)
    assert set(modes.values()) == {0o600}


def test_after_setup_the_kit_and_its_venv_are_root_s_alone(installed):
    for top in (installed / "source", installed / "venv"):
        for path in [top, *top.rglob("*")]:
            facts = path.lstat()
            if stat.S_ISLNK(facts.st_mode):
                continue
            assert (stat.S_IMODE(facts.st_mode) & 0o077, facts.st_uid) == (0, os.getuid()), path


@pytest.mark.skipif(os.getuid() != 0, reason="Gradescope runs the autograder as root")
def test_without_landlock_a_submission_reads_nothing_of_the_autograder(installed):
    (hidden_suite,) = (installed / "venv").glob("lib/python3*/site-packages/chunklab/suites")
    secrets = [
        installed / "source" / "kit" / "solutions" / f"{LESSON}.py",
        installed / "source" / "chunklab_autograder.json",
        next((installed / "source").glob("chunklab-*.whl")),
        hidden_suite / LESSON / "test_hidden.py",
    ]
    assert all(path.is_file() for path in secrets)
    limits = Limits(call_seconds=2.0, submission_seconds=20.0)
    # A kernel before 5.13: no Landlock; and the folder on the machine's own disk.
    settings = ZygoteSettings(limits, namespaces=False, landlock=False, own_disk=False)
    with Zygote(settings) as zygote:
        assert "unconfined_files" in zygote.gaps
        workers = Workers(zygote, limits)
        try:
            seen = workers.proxy(PROBE).read([str(path) for path in secrets])
        finally:
            workers.close()
    assert seen == dict.fromkeys(map(str, secrets), "PermissionError")
