"""What the class's pages and the LMS file hold, as `chunklab grade`'s options asked.

The options themselves (flags, defaults, checks) are declared once, in
`commands/grade_options.py`; these are the values the class's files take.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK


@dataclass(frozen=True)
class ClassOptions:
    """What the class's pages hold."""

    similarity: bool = False
    # "html" writes feedback/<student>.html; "md" writes a .md beside each one too.
    feedback: str = "html"
    hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK


@dataclass(frozen=True)
class LmsOptions:
    """How the LMS file is filled."""

    # The roster column to fill (Canvas `Title (id)`); None: the one named for the lesson.
    assignment: str | None = None
    # The LMS assignment's points; None: the roster's (Points Possible, Maximum grade) or the kit's.
    points: float | None = None
    missing_as_zero: bool = False
