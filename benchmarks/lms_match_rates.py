"""How many submissions of an LMS download match the LMS's own roster, for each LMS.

Run from the kit's folder:

    python benchmarks/lms_match_rates.py

It builds the three small classes of the tests (`tests/lms_classes.py`: a
Canvas download with its gradebook export, a Moodle download with its
grading worksheet, a GitHub Classroom clone with its roster), grades each with
`chunklab grade --roster` as an instructor would, and prints, per class, the
submissions graded, how many matched a roster student, and the rate, read
from `gradebook.csv` (its `roster` column says "not in roster"). Point
PYTHONPATH at another checkout's `graders` folder to measure that one.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT))

from tests.lms_classes import canvas_class, classroom_class, moodle_class  # noqa: E402


def match_rate(download: Path, roster: Path, out: Path, *extra: str) -> tuple[int, int] | str:
    """Submissions matched and graded, or why nothing was written."""
    run = subprocess.run(
        [sys.executable, "-m", "chunklab", "grade", str(download), "--roster", str(roster),
         "--out", str(out), "--quiet", "--jobs", "2", *extra],
        cwd=KIT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
    )  # fmt: skip
    if not (out / "gradebook.csv").exists():
        return f"nothing written (exit {run.returncode}): {run.stderr.strip()[:100]}"
    with (out / "gradebook.csv").open(newline="", encoding="utf-8") as stream:
        handed = [row for row in csv.DictReader(stream) if row["status"] != "missing"]
    return sum(row["roster"] != "not in roster" for row in handed), len(handed)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        moodle_zip, worksheet = moodle_class(root)
        moodle = root / "moodle-submissions"
        with zipfile.ZipFile(moodle_zip) as archive:
            archive.extractall(moodle)
        classes = {
            "Canvas": (*canvas_class(root), ()),
            "Moodle": (moodle, worksheet, ()),
            "GitHub Classroom": (*classroom_class(root), ("--lesson", "char_chunk")),
        }
        for name, (download, roster, extra) in classes.items():
            found = match_rate(download, roster, root / name, *extra)
            if isinstance(found, str):
                print(f"{name:17} {found}")
                continue
            matched, handed = found
            rate = matched / handed if handed else 0.0
            print(f"{name:17} {matched} of {handed} submissions matched ({rate:.0%})")


if __name__ == "__main__":
    main()
