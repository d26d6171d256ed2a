"""The feedback pages packed as an LMS's bulk feedback upload takes them.

- Canvas ("Upload Submissions" on the assignment's gradebook menu) reads a zip
  of files named as its download names them; of the parts between `_`, the
  first two that are all digits are the user id and an attachment id of that
  user's submission (`infer_comment_context_from_filename` in
  `app/models/assignment.rb`). Each page is attached to the student's
  submission as a comment.
- Moodle ("Upload multiple feedback files in a zip", `assignfeedback_file`,
  `importziplib.php`) reads the folders of its own download: the first path
  part `<full name>_<participant id>_<plugin type>_<plugin>` names the
  student, and the file inside becomes that student's feedback file.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path

FEEDBACK_ARCHIVE = "feedback_{lms}.zip"


def feedback_archive(pages: Iterable[tuple[str, Path]]) -> bytes:
    """A zip holding each page (a written file) under the name the LMS needs; one per name."""
    buffer = io.BytesIO()
    seen: set[str] = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, page in pages:
            if name in seen or not page.is_file():
                continue
            seen.add(name)
            archive.writestr(name, page.read_bytes())
    return buffer.getvalue()

