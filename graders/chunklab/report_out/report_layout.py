"""A report as the files and lines of a run show it: hidden tests as the instructor chose,
in chunklab's own shape or Gradescope's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunklab.scoring.feedback_policy import DEFAULT as DEFAULT_HIDDEN_FEEDBACK
from chunklab.scoring.feedback_policy import with_hidden_feedback
from chunklab.scoring.report import GradeReport

if TYPE_CHECKING:
    from chunklab.report_out.gradescope import GradescopeOptions


@dataclass(frozen=True)
class ReportLayout:
    output_format: str = "json"  # or "gradescope"
    hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK
    # Gradescope's options; its defaults when None. Its writer (which reads the lessons'
    # rule lists) is imported only for that format.
    gradescope: GradescopeOptions | None = None

    def data(self, report: GradeReport) -> dict[str, Any]:
        """The JSON data written for the report."""
        # What students may see of hidden tests, in every output that carries tests.
        shown = with_hidden_feedback(report, self.hidden_feedback)
        if self.output_format == "gradescope":
            from chunklab.report_out.gradescope import GradescopeOptions, gradescope_results

            return gradescope_results(shown, self.gradescope or GradescopeOptions())
        return shown.to_json()
