"""What `chunklab grade` imports to start: only what grading one submission needs.

The direction of imports between the package's parts is kept by import-linter
(`lint-imports`, a step of CI; the contracts are in `pyproject.toml`).
"""

from __future__ import annotations

import subprocess
import sys

# What grading one submission to stdout never needs: the class's pages and tallies, code
# similarity, the lesson texts Gradescope's groups come from, other grading processes, the
# templates the pages are made from.
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
)


def test_the_grade_command_starts_without_what_only_class_files_need():
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
