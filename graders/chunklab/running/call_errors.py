"""What can go wrong in a call into a submission, besides the submission's own exceptions."""


class CallTimedOut(Exception):
    """A call into the submission ran past its time limit."""


class WorkerCrashed(Exception):
    """The process running the submission ended during a call."""


class SubmissionRaised(Exception):
    """The submission raised an exception that is not a builtin type."""


# Grader checks must let these through: they are outcomes of their own (timeout, error).
NOT_THE_SUBMISSIONS_ANSWER = (CallTimedOut, WorkerCrashed)
