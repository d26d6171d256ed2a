"""What `chunklab grade` imports to start: only what grading one submission needs.

The direction of imports between the package's parts is kept by import-linter
(`lint-imports`, a step of CI; the contracts are in `pyproject.toml`).
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import KIT_ROOT

# What grading one submission to stdout never needs: the class's pages and tallies, code
# similarity, the lesson texts Gradescope's groups come from, other grading processes,
# the gradebooks and the roster (--out, --roster), report files, an LMS download's readers,
# the templates the pages are made from.
ONLY_FOR_CLASS_FILES = (
    "chunklab.class_out.class_outputs",
    "chunklab.class_out.class_report",
    "chunklab.class_out.feedback_page",
    "chunklab.class_out.pages",
    "chunklab.class_out.similarity",
    "chunklab.report_out.resume",
    "chunklab.class_out.lms",
    "chunklab.authoring.lesson_source",
    "multiprocessing",
    "jinja2",
    "chunklab.class_out.class_pages",
    "chunklab.class_out.class_roll",
    "chunklab.class_out.gradebook",
    "chunklab.class_out.gradebook_files",
    "chunklab.class_out.roster",
    "chunklab.class_out.roster_figures",
    "chunklab.report_out.files",
    "chunklab.report_out.report_files",
    "chunklab.reading.lms_download",
)


def test_the_grade_command_starts_without_pytest_or_what_only_class_files_need():
    probe = (
        "import sys\n"
        "import chunklab.cli, chunklab.commands.grade\n"
        "chunklab.cli.build_parser()\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    loaded = set(done.stdout.split())
    assert "chunklab.commands.grade" in loaded, done.stderr
    assert sorted(loaded & set(ONLY_FOR_CLASS_FILES)) == []
    # pytest is imported once the sandbox has started, which its import then overlaps.
    assert "pytest" not in loaded


def graded_one_file(probe: str) -> str:
    """The last line `probe` prints after grading one file to a pipe, from the kit's folder."""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=KIT_ROOT
    )
    assert done.returncode == 0, done.stderr
    report, last = done.stdout.splitlines()
    assert json.loads(report)["status"] == "graded"
    return last


def test_grading_one_file_to_a_pipe_loads_nothing_only_class_files_need():
    probe = (
        "import sys\n"
        "from chunklab.cli import main\n"
        "code = main(['grade', '--lesson', 'char_chunk', 'solutions/char_chunk.py'])\n"
        "print('LOADED', ' '.join(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    loaded = graded_one_file(probe)
    assert sorted(set(loaded.split()[1:]) & set(ONLY_FOR_CLASS_FILES)) == []


# Notes, as each zygote starts, whether pytest is imported yet; then grades one file.
ZYGOTES_NOTED = """
import sys
from chunklab.sandbox import zygote
started = []
start = zygote.Zygote.__init__
def noted(self, *args, **kwargs):
    started.append('pytest' in sys.modules)
    start(self, *args, **kwargs)
zygote.Zygote.__init__ = noted
from chunklab.cli import main
code = main(['grade', '--lesson', 'char_chunk', 'solutions/char_chunk.py'])
print('STARTED', started)
sys.exit(code)
"""


def test_grading_one_file_starts_its_one_sandbox_before_pytest_is_imported():
    assert graded_one_file(ZYGOTES_NOTED) == "STARTED [False]"


def test_the_command_line_process_freezes_what_is_left_before_its_end():
    # Its teardown then skips walking every object for cyclic garbage once more.
    probe = (
        "import gc, sys\n"
        "from chunklab.cli import script_main\n"
        "sys.argv = ['chunklab', 'grade', '--quiet', 'solutions/char_chunk.py']\n"
        "code = script_main()\n"
        "print('ENDED', code, gc.get_freeze_count() > 0)\n"
    )
    assert graded_one_file(probe) == "ENDED 0 True"
