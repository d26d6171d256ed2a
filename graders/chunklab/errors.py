"""The errors a user of chunklab can see, one class per kind.

Each message says what went wrong and what to do about it. `kind` is the
short name written into a grade report's `errors` list.
"""

from __future__ import annotations


class ChunklabError(Exception):
    """Base class of every error chunklab reports to a person."""

    kind = "error"


class UsageError(ChunklabError):
    """The command line asks for something that cannot be done (exit status 2)."""

    kind = "usage"


class GradingBrokeOffError(ChunklabError):
    """The grading of a class stopped part way (a lost cluster): what was graded is kept."""

    kind = "broke_off"


class UnknownLessonError(UsageError):
    kind = "unknown_lesson"


class KitLayoutError(ChunklabError):
    """The kit's own files (solutions, exercises, suites) are not where they should be."""

    kind = "kit_layout"


class SubmissionError(ChunklabError):
    """A submission could not be graded at all; it scores 0 with status `error`."""

    kind = "submission"


class UnreadableSubmissionError(SubmissionError):
    """The file is not text, not a notebook, or cannot be opened."""

    kind = "unreadable"


class BrokenNotebookError(SubmissionError):
    kind = "broken_notebook"


class LessonNotFoundError(SubmissionError):
    """Neither `--lesson`, the notebook metadata nor the file name names a lesson."""

    kind = "unknown_lesson"


class SyntaxErrorInSubmission(SubmissionError):
    kind = "syntax_error"


class MissingDefinitionError(SubmissionError):
    """The submission ran but does not define the function or class the lesson asks for."""

    kind = "missing_definition"


class WorkerDiedError(SubmissionError):
    """The process running the submission ended while the submission was being loaded."""

    kind = "worker_died"


class BrokenProtocolError(SubmissionError):
    """The submission wrote answers to the grader's channel in place of its worker's."""

    kind = "broken_protocol"


class SubmissionTimeoutError(SubmissionError):
    kind = "timeout"


class UnsafePathError(SubmissionError):
    """A symbolic link, FIFO, device or socket where a submission's file should be.

    It is never followed or opened: a link could point at a solution, another
    student's work or an endless device, and a FIFO would block the run.
    """

    kind = "unsafe_path"


class SubmissionTooLargeError(UnreadableSubmissionError):
    """The submission's code is larger than `--max-submission-kb`."""

    kind = "too_large"


class LessonConflictError(SubmissionError):
    """The notebook's metadata names one lesson and its file name another."""

    kind = "lesson_conflict"


class ImportBlockedError(SubmissionError):
    """The submission imports a module outside the standard library."""

    kind = "import_blocked"


class HelperLeftBehindError(SubmissionError):
    """The submission imports a module of the student's that does not travel with it."""

    kind = "helper_left_behind"


class OutOfMemoryError(SubmissionError):
    """Loading the submission went over the memory limit before any test could start."""

    kind = "out_of_memory"


class ReadingFailedError(UnreadableSubmissionError):
    """Reading a submission failed in a way the reader does not foresee: a fault of the kit."""

    kind = "internal"


class MutationLibraryMissingError(UsageError):
    """`validate --mutants` needs the optional mutation library."""

    kind = "mutation_library_missing"
