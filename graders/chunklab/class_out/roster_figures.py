"""How well a class matched its roster: the figures of the table, summary.json and report.html.

A submission is matched when the roster lists its student; one that matches
nobody is unmatched (the LMS could not place its grade); a listed student
with nothing handed in in a lesson is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunklab.class_out.gradebook import NOT_GRADED, NOT_IN_ROSTER, Entry

# Names listed in full in the table and the page; the rest are counted.
NAMES_SHOWN = 20


@dataclass(frozen=True)
class RosterFigures:
    matched: int
    unmatched: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def submissions(self) -> int:
        return self.matched + len(self.unmatched)

    @property
    def rate(self) -> float:
        return self.matched / self.submissions if self.submissions else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "matched": self.matched,
            "unmatched": len(self.unmatched),
            "missing": len(self.missing),
            "match_rate": round(self.rate, 4),
            "unmatched_submissions": list(self.unmatched),
            "missing_students": list(self.missing),
        }

    def line(self) -> str:
        """One line below the table."""
        said = (
            f"roster: {self.matched} of {self.submissions} submission(s) matched ({self.rate:.0%})"
        )
        if self.unmatched:
            said += f"; unmatched: {listed(self.unmatched)}"
        if self.missing:
            said += f"; missing: {listed(self.missing)}"
        return said

    def html(self) -> str:
        """The roster section of report.html."""
        from chunklab.class_out.pages import render  # Jinja2 only when a page is written

        rows = [
            ("Matched", f"{self.matched} of {self.submissions} submission(s) ({self.rate:.0%})"),
            ("Unmatched", listed(self.unmatched) or "none"),
            ("Missing", listed(self.missing) or "none"),
        ]
        return render("roster.html.j2", rows=rows)


def listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")


def roster_figures(entries: Sequence[Entry]) -> RosterFigures:
    """The figures of a class's entries once matched to the roster (`with_roster`)."""
    handed = [e for e in entries if e.status not in ("missing", NOT_GRADED)]
    unmatched = tuple(e.submission or e.student for e in handed if e.roster == NOT_IN_ROSTER)
    present = {e.student for e in handed if e.roster != NOT_IN_ROSTER}
    missing = tuple(
        dict.fromkeys(
            e.student for e in entries if e.status == "missing" and e.student not in present
        )
    )
    return RosterFigures(len(handed) - len(unmatched), unmatched, missing)
