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


@dataclass(frozen=True)
class LmsOptions:
    """How the LMS file is filled, as the command line asked."""

    # The roster column to fill (Canvas `Title (id)`); None: the one named for the lesson.
    assignment: str | None = None
    # The LMS assignment's points; None: the roster's (Points Possible, Maximum grade) or the kit's.
    points: float | None = None
    missing_as_zero: bool = False

    def __post_init__(self) -> None:
        if self.points is not None and not self.points > 0:
            raise UsageError(f"--points must be more than 0, not {self.points:g}")
