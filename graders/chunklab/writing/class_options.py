"""What the class's files hold, as the command line asked: known before anything is graded."""

from __future__ import annotations

from dataclasses import dataclass

from chunklab.errors import UsageError
from chunklab.scoring.feedback_policy import CHOICES as HIDDEN_FEEDBACK

FEEDBACK_FORMATS = ("html", "md")


@dataclass(frozen=True)
class ClassOptions:
    """What the class's files hold, as the command line asked."""

    similarity: bool = False
    # "html" writes feedback/<student>.html; "md" writes a .md beside each one too.
    feedback: str = "html"
    hidden_feedback: str = "rule"

    def __post_init__(self) -> None:
        if self.feedback not in FEEDBACK_FORMATS:
            raise UsageError(f"--feedback must be html or md, not {self.feedback!r}")
        if self.hidden_feedback not in HIDDEN_FEEDBACK:
            raise UsageError(
                f"--hidden-feedback must be full, rule or none, not {self.hidden_feedback!r}"
            )
