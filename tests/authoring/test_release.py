"""`chunklab release DIR`: what a student gets, and the proof that nothing instructor-only leaks."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.conftest import KIT_ROOT, LESSON_IDS

SOLUTIONS = KIT_ROOT / "solutions"
SUITES = KIT_ROOT / "graders" / "chunklab" / "suites"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from chunklab.cli import main

    dest = tmp_path_factory.mktemp("release") / "bundle"
    assert main(["release", str(dest)]) == 0
    return dest


def bundle_files(bundle: Path) -> list[Path]:
    return sorted(p for p in bundle.rglob("*") if p.is_file())


def body_dumps(source: str) -> set[str]:
    """`ast.dump` of every function and method body, docstrings left out."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # a docstring shared with the stub is not code
            if body:
                found.add(ast.dump(ast.Module(body=body, type_ignores=[])))
    return found


def code_in(path: Path) -> list[str]:
    """The Python source a bundle file holds: a .py file, or a notebook's code cells."""
    if path.suffix == ".py":
        return [path.read_text(encoding="utf-8")]
    if path.suffix == ".ipynb":
        notebook = nbformat.read(path, as_version=4)
        return [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    return []


def test_the_bundle_holds_what_a_student_needs(bundle: Path) -> None:
    for lesson in LESSON_IDS:
        assert (bundle / "exercises" / f"{lesson}.py").read_text() == (
            KIT_ROOT / "exercises" / f"{lesson}.py"
        ).read_text()
        notebook = nbformat.read(bundle / "notebooks" / f"{lesson}.ipynb", as_version=4)
        assert notebook.metadata["chunklab"] == {"lesson": lesson}
        assert (bundle / "graders" / "chunklab" / "suites" / lesson / "test_visible.py").is_file()
    assert (bundle / "pyproject.toml").is_file()
    assert (bundle / "graders" / "chunklab" / "student" / "selfcheck.py").is_file()


def test_the_readme_says_how_to_install_open_and_check(bundle: Path) -> None:
    readme = (bundle / "README.md").read_text()
    for words in ("pip install", "jupyter lab notebooks/", "self-check", "chunklab check"):
        assert words in readme
    assert "$" not in readme.replace("$ ", "")  # every placeholder was filled in


def test_no_reference_solution_file_by_name_or_content(bundle: Path) -> None:
    assert not any("solutions" in p.relative_to(bundle).parts for p in bundle_files(bundle))
    solution_bytes = {p.read_bytes() for p in SOLUTIONS.rglob("*.py")}
    assert solution_bytes, "the kit has no solutions to compare with"
    leaked = [p for p in bundle_files(bundle) if p.read_bytes() in solution_bytes]
    assert leaked == []


def test_no_hidden_test_file(bundle: Path) -> None:
    assert not [p for p in bundle_files(bundle) if p.name.startswith(("test_hidden", "hidden_"))]
    hidden = {p.read_bytes() for p in SUITES.rglob("test_hidden*.py")}
    assert not [p for p in bundle_files(bundle) if p.read_bytes() in hidden]


def test_no_module_that_only_hidden_tests_import(bundle: Path) -> None:
    # Such a module holds hidden inputs (the long document's text, say): a student who had
    # it could work out the hidden answers ahead of the grading.
    def imported_by(paths: list[Path]) -> set[str]:
        names: set[str] = set()
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module)
        return names

    shipped = {p for p in bundle_files(bundle) if p.suffix == ".py"}
    hidden_only = imported_by(sorted(SUITES.rglob("test_hidden*.py"))) - imported_by(
        sorted(shipped)
    )
    # Visible tests a hidden test builds on ship as tests, which is what they are for.
    hidden_only = {m for m in hidden_only if not m.rpartition(".")[2].startswith("test_")}
    in_bundle = {p.relative_to(bundle).with_suffix("").as_posix() for p in shipped}
    assert [
        m for m in hidden_only if any(name.endswith(m.replace(".", "/")) for name in in_bundle)
    ] == []


def test_no_function_body_of_a_solution_anywhere_in_the_bundle(bundle: Path) -> None:
    solution_bodies = set().union(*(body_dumps(p.read_text()) for p in SOLUTIONS.rglob("*.py")))
    assert solution_bodies
    for path in bundle_files(bundle):
        for source in code_in(path):
            try:
                bodies = body_dumps(source)
            except SyntaxError:
                continue  # not Python (a notebook cell with a magic): nothing to compare
            assert not bodies & solution_bodies, f"{path} holds code of a reference solution"


def test_the_engine_in_the_bundle_checks_a_stub_on_its_own(bundle: Path) -> None:
    """Run from the bundle's copy of chunklab, which has public suites only."""
    # No bytecode written into the bundle: the other tests read what it holds.
    env = {**os.environ, "PYTHONPATH": str(bundle / "graders"), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import chunklab, sys; print(chunklab.__file__); "
            # The bundle's `chunklab` command (its pyproject's entry point).
            "from chunklab.cli import student_main; "
            "sys.exit(student_main(['check', 'char_chunk', '--json']))",
        ],
        cwd=bundle,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    first, report_line = result.stdout.splitlines()[:2]
    assert Path(first).is_relative_to(bundle), "the kit's own chunklab was used"
    report = json.loads(report_line)
    assert result.returncode == 1
    assert report["status"] == "graded" and report["score"] == 0 and report["max_score"] > 0


def test_a_non_empty_folder_is_refused_and_left_alone(chunklab, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = chunklab("release", tmp_path)
    assert result.exit_code == 2
    assert "not empty" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_file_is_refused(chunklab, tmp_path: Path) -> None:
    target = tmp_path / "bundle.zip"
    target.write_text("")
    assert chunklab("release", target).exit_code == 2


def test_an_earlier_release_is_replaced(chunklab, tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    assert chunklab("release", dest).exit_code == 0
    (dest / "leftover.txt").write_text("from before")
    assert chunklab("release", dest).exit_code == 0
    assert not (dest / "leftover.txt").exists()
    assert (dest / "README.md").is_file()
    # No staging folder is left beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["bundle"]


def test_pip_installs_the_bundle(bundle: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(bundle),
        ],
        check=True,
        timeout=300,
    )
    assert (target / "chunklab" / "suites" / "pytest.ini").is_file()
    assert (target / "chunklab" / "suites" / "char_chunk" / "rules.md").is_file()
    assert not list(target.rglob("test_hidden*.py"))


def test_the_body_comparison_catches_renamed_and_reformatted_copies() -> None:
    source = (SOLUTIONS / "char_chunk.py").read_text()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.name = "something_else"
    copied = ast.unparse(tree)  # other name, comments and layout gone
    assert body_dumps(copied) & body_dumps(source)


SECRET_IN_VISIBLE_FILE = """

@pytest.mark.visibility("hidden")
@pytest.mark.rule("A rule added to a visible file.")
@pytest.mark.points(1)
def test_secret_in_the_visible_file(submission):
    expect_result(submission.chunk, ("secret-one", 4, 1), ["secret-one"])
"""


def one_test_file(visibility: str, name: str, call: str) -> str:
    """A grader test file holding one char_chunk test, marked `visibility` as a whole."""
    return (
        "import pytest\n\nfrom chunklab.suites.checks import expect_result\n\n"
        f'pytestmark = pytest.mark.visibility("{visibility}")\n\n\n'
        '@pytest.mark.rule("Empty text gives an empty list [].")\n'
        "@pytest.mark.points(1)\n"
        f"def {name}(submission):\n    {call}\n"
    )


# Hidden checks in a file whose name says nothing, and a public one named like hidden files.
SECRET_FILE = one_test_file(
    "hidden",
    "test_secret_in_a_new_file",
    'expect_result(submission.chunk, ("secret-two", 4, 1), ["secret-two"])',
)
PUBLIC_IN_HIDDEN_NAMED_FILE = one_test_file(
    "visible",
    "test_public_in_a_hidden_named_file",
    'expect_result(submission.chunk, ("", 3, 1), [])',
)


def test_the_release_ships_exactly_the_tests_marked_visible(tmp_path: Path) -> None:
    """Visibility decides, not the file: hidden tests in a visible or new file stay out."""
    from tests.kit_copy import copy_kit, run_chunklab

    kit = copy_kit(tmp_path / "kit")
    suite = kit / "graders" / "chunklab" / "suites" / "char_chunk"
    visible = suite / "test_visible.py"
    visible.write_text(visible.read_text() + SECRET_IN_VISIBLE_FILE)
    (suite / "test_more_cases.py").write_text(SECRET_FILE)
    (suite / "test_hidden_public.py").write_text(PUBLIC_IN_HIDDEN_NAMED_FILE)
    result = run_chunklab(kit, "release", tmp_path / "bundle")
    assert result.returncode == 0, result.stderr
    shipped = tmp_path / "bundle" / "graders" / "chunklab" / "suites" / "char_chunk"
    assert sorted(p.name for p in shipped.glob("test_*.py")) == [
        "test_hidden_public.py",
        "test_visible.py",
    ]
    everything = "".join(p.read_text(errors="replace") for p in bundle_files(tmp_path / "bundle"))
    # Rule texts are public (the notebook states every rule); the checks themselves are not.
    for secret in ("secret-one", "secret-two", "test_secret_in"):
        assert secret not in everything
    assert (shipped / "test_hidden_public.py").read_text() == PUBLIC_IN_HIDDEN_NAMED_FILE
    # The visible file lost the added test and nothing else.
    assert (shipped / "test_visible.py").read_text() == (
        KIT_ROOT / "graders" / "chunklab" / "suites" / "char_chunk" / "test_visible.py"
    ).read_text()


# Hidden tests whose data is not inside their own `def`: module-level inputs, a test made
# by a factory, one made by assignment, a parametrize list. Each secret may reach no bundle.
HIDDEN_DATA_FORMS = """

# Inputs at module level that only a hidden test uses.
SECRET_INPUTS = [("secret-alpha", 40, 1)]


@pytest.mark.visibility("hidden")
@pytest.mark.rule("A text no longer than size is one chunk: the whole text.")
@pytest.mark.points(1)
def test_secret_module_inputs(submission):
    for args in SECRET_INPUTS:
        expect_result(submission.chunk, args, [args[0]])


def make_secret_test(text):
    @pytest.mark.visibility("hidden")
    @pytest.mark.rule("A text no longer than size is one chunk: the whole text.")
    @pytest.mark.points(1)
    def check(submission):
        expect_result(submission.chunk, (text, 40, 1), [text])

    return check


test_secret_from_a_factory = make_secret_test("secret-beta")


def secret_check(submission):
    expect_result(submission.chunk, ("secret-gamma", 40, 1), ["secret-gamma"])


hidden_mark = pytest.mark.visibility("hidden")
test_secret_by_assignment = hidden_mark(
    pytest.mark.rule("A text no longer than size is one chunk: the whole text.")(
        pytest.mark.points(1)(secret_check)
    )
)

SECRET_CASES = ["secret-delta"]


@pytest.mark.visibility("hidden")
@pytest.mark.rule("A text no longer than size is one chunk: the whole text.")
@pytest.mark.points(1)
@pytest.mark.parametrize("text", SECRET_CASES)
def test_secret_parametrized(submission, text):
    expect_result(submission.chunk, (text, 40, 1), [text])
"""
DATA_SECRETS = ("secret-alpha", "secret-beta", "secret-gamma", "secret-delta", "hidden_mark")


def test_no_data_of_a_hidden_test_reaches_the_bundle_in_any_form(tmp_path: Path) -> None:
    from tests.kit_copy import copy_kit, run_chunklab, run_module

    kit = copy_kit(tmp_path / "kit")
    suite = kit / "graders" / "chunklab" / "suites" / "char_chunk"
    visible = suite / "test_visible.py"
    visible.write_text(visible.read_text() + HIDDEN_DATA_FORMS)
    # Pytest sees the four hidden tests, and grading would run them.
    listed = run_module(
        kit, "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(visible)
    )
    for name in ("module_inputs", "from_a_factory", "by_assignment", "parametrized"):
        assert f"test_secret_{name}" in listed.stdout, listed.stdout[-2000:]
    result = run_chunklab(kit, "release", tmp_path / "bundle")
    assert result.returncode == 0, result.stderr
    everything = "".join(p.read_text(errors="replace") for p in bundle_files(tmp_path / "bundle"))
    assert [secret for secret in DATA_SECRETS if secret in everything] == []
    # The visible file is what the visible tests need: as the kit has it.
    shipped = tmp_path / "bundle" / "graders" / "chunklab" / "suites" / "char_chunk"
    assert (shipped / "test_visible.py").read_text() == (
        SUITES / "char_chunk" / "test_visible.py"
    ).read_text()


def test_the_hidden_inputs_data_never_reaches_the_bundle(bundle: Path, tmp_path: Path) -> None:
    from chunklab.authoring.bundle import manifest_files
    from chunklab.errors import KitLayoutError
    from chunklab.suites.kept_inputs import INPUTS_FILE

    kept = {p.read_bytes() for p in SUITES.glob(f"*/{INPUTS_FILE}")}
    assert len(kept) == len(LESSON_IDS)
    assert not [p for p in bundle_files(bundle) if p.name == INPUTS_FILE or p.read_bytes() in kept]
    shipped = "".join(p.read_text(errors="replace") for p in bundle_files(bundle))
    assert "hidden_inputs" not in shipped
    # Even a manifest that names the file does not put it in.
    manifest = tmp_path / "student_side.txt"
    manifest.write_text("suites/checks.py\nsuites/*/*.json\n")
    with pytest.raises(KitLayoutError, match="hidden inputs"):
        manifest_files(manifest)


def test_the_bundle_holds_the_manifest_and_no_other_engine_file(bundle: Path) -> None:
    from chunklab.authoring.bundle import manifest_files
    from chunklab.kit import PACKAGE_DIR

    engine = bundle / "graders" / "chunklab"
    listed = {p.relative_to(PACKAGE_DIR) for p in manifest_files()}
    tests = {p.relative_to(engine) for p in engine.rglob("test_*.py")}
    shipped = {p.relative_to(engine) for p in engine.rglob("*") if p.is_file()}
    assert shipped == listed | tests
    assert {p.name for p in tests} == {"test_visible.py"}


def test_a_hidden_test_between_visible_ones_goes_with_its_comments_and_decorators() -> None:
    from chunklab.authoring.visible_suite import visible_part

    source = (
        "import pytest\n\n\n"
        "@pytest.mark.points(1)\n"
        "def test_a():\n    pass\n\n\n"
        "# Why the hidden case matters.\n"
        "@pytest.mark.visibility('hidden')\n"
        "def test_b():\n    x = 1\n\n    return x\n\n\n"
        "class TestC:\n    pass\n"
    )
    assert visible_part(source, {"test_a", "TestC"}, {"test_b"}, Path("t.py")) == (
        "import pytest\n\n\n@pytest.mark.points(1)\ndef test_a():\n    pass\n\n\n"
        "class TestC:\n    pass\n"
    )


def test_what_only_hidden_tests_use_goes_and_what_visible_ones_use_stays() -> None:
    from chunklab.authoring.visible_suite import visible_part

    source = (
        '"""Checks."""\n\n'
        "import json\n"
        "import re\n\n"
        "# Shared by both.\n"
        "WORDS = ['a', 'b']\n"
        "SECRET = ['s']\n"
        "LOCAL = ['not the local one']\n\n\n"
        "def helper(words):\n    return re.escape(words[0])\n\n\n"
        "def test_a(tmp_path):\n    LOCAL = 1\n    assert helper(WORDS) and LOCAL\n\n\n"
        "def test_b():\n    assert json.dumps(SECRET + WORDS + LOCAL)\n"
    )
    # A name a visible test binds itself (its own LOCAL) does not take in the module's.
    assert visible_part(source, {"test_a"}, {"test_b"}, Path("t.py")) == (
        '"""Checks."""\n\n'
        "import re\n\n"
        "# Shared by both.\n"
        "WORDS = ['a', 'b']\n\n\n"
        "def helper(words):\n    return re.escape(words[0])\n\n\n"
        "def test_a(tmp_path):\n    LOCAL = 1\n    assert helper(WORDS) and LOCAL\n"
    )


def test_every_data_file_of_the_package_is_in_its_package_data() -> None:
    """A file the package reads at run time (manifest, declarations, texts) ships in a wheel."""
    import fnmatch
    import re

    pyproject = (KIT_ROOT / "pyproject.toml").read_text()
    listed = re.search(r"^\[tool.setuptools.package-data\]\nchunklab = \[(.*)\]$", pyproject, re.M)
    assert listed is not None
    patterns = re.findall(r'"([^"]+)"', listed.group(1))
    package = KIT_ROOT / "graders" / "chunklab"
    data = [
        path.relative_to(package).as_posix()
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc")
    ]
    assert "authoring/student_side.txt" in data
    assert [name for name in data if not any(fnmatch.fnmatch(name, p) for p in patterns)] == []
