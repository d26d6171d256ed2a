"""Every answer a worker sends, checked by shape before the grader uses any of it.

The submission runs in the worker's process and can write to the pipe the
grader reads its answers from, so an answer is whatever JSON the submission
chose. Each answer must have exactly the shape the worker gives to the
request it answers: its keys, the types of what the grader reads, the
handle the grader chose, the cells the grader sent. Anything else is a
broken protocol (`ProtocolBroken`), never an exception in the grader. What
may fit and still be long (a message, a list of problems) is cut to a bound,
saying so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from chunklab.contract import ProtocolBroken
from chunklab.text import first_of

BROKEN_PROTOCOL = (
    "Your code interfered with the channel the grader reads its answers from: an answer "
    "came back that the process running your code never sends (did your code write to a "
    "file descriptor it did not open, or start a process that kept running?). None of its "
    "answers can be trusted, so it was not graded."
)

# A keyed BLAKE2b digest as the worker writes it (64 bytes, in hex).
DIGEST = re.compile("[0-9a-f]{128}")
# The worker cuts an exception's message at 500 characters and a traceback at 2,000;
# a little more is allowed, and anything longer is cut here.
MAX_NAME = 200
MAX_MESSAGE = 1000
MAX_PROBLEM_MESSAGE = 2500
# Warnings from loading shown in a report; a note says how many more there were.
MAX_PROBLEMS = 20
PROBLEM_KINDS = ("syntax_error", "raised", "out_of_memory", "too_slow", "import_blocked")
# The keys each kind of answer and load problem holds, at most.
CALL_KEYS = {"ok", "tagged", "inputs"}
RAISED_KEYS = {"type", "builtin", "message"}
PROBLEM_KEYS = {"cell", "kind", "line", "message"}
BLOCKED_KEYS = {"kind", "modules", "message"}


@dataclass(frozen=True)
class Expected:
    """What an answer must look like: the request's kind, and the handle it named (`new`)."""

    kind: str
    handle: object = None
    # For the inputs to try, asked at once: what each call's answer must look like.
    each: tuple[Expected, ...] = ()


def expected_of(request: dict[str, Any]) -> Expected:
    """The answer a request calls for: its op, or "digest" for a call asked so."""
    op = str(request.get("op"))
    if op in ("call", "method"):
        if "digest" in request:
            return EXPECTED["digest"]
        if "inputs" in request:
            # Asked with other calls at once, the arguments as the call left them come too.
            return EXPECTED["left" if request.get("left") else "inputs"]
        return EXPECTED[op]
    if op == "new":
        return Expected(op, request.get("handle"))
    if op == "tries":
        return Expected(op, each=tuple(map(expected_of, request.get("calls", []))))
    return EXPECTED.get(op) or Expected(op)


# Requests whose answer may be a value and nothing else (a call asked by digest may
# send its value instead of the digest).
VALUE_ONLY = frozenset(("call", "method", "kept", "digest", "held"))
# The answers most requests call for, made once: a class makes thousands of calls.
EXPECTED = {
    kind: Expected(kind) for kind in ("call", "method", "digest", "inputs", "left", "kept")
}


def checked_answer(answer: object, expected: Expected) -> dict[str, Any]:
    """The answer, if it has the shape the worker gives to such a request; its texts cut."""
    if type(answer) is not dict:
        raise ProtocolBroken(BROKEN_PROTOCOL)
    if len(answer) == 1 and "ok" in answer and expected.kind in VALUE_ONLY:
        return answer  # the common answer, as the checks below would find it
    if expected.kind == "tries":
        return checked_tries(answer, expected.each)
    if expected.kind == "load":
        if set(answer) != {"problems", "defined"}:
            raise ProtocolBroken(BROKEN_PROTOCOL)
        return answer
    if "raised" in answer:
        return {"raised": checked_raised(answer)}
    if expected.kind == "new":
        fits = len(answer) == 1 and "handle" in answer
        fits = fits and same_handle(answer["handle"], expected.handle)
    elif expected.kind == "digest" and "digest" in answer:
        digest, size = answer["digest"], answer.get("size", 0)
        fits = set(answer) <= {"digest", "size"} and type(size) is int and size >= 0
        fits = fits and type(digest) is str and bool(DIGEST.fullmatch(digest))
    elif expected.kind == "left" and "left" in answer:
        left = {key: value for key, value in answer.items() if key != "left"}
        fits = value_answer(left, "inputs") and value_answer(answer["left"], "call")
    else:
        fits = value_answer(answer, expected.kind)
    if not fits:
        raise ProtocolBroken(BROKEN_PROTOCOL)
    return answer


STOPPED = {"stopped": True}


def checked_tries(answer: dict[str, Any], each: tuple[Expected, ...]) -> dict[str, Any]:
    """The answers to the inputs to try, asked at once: each fits its call, or says it was
    stopped (past its time)."""
    answers = answer.get("answers")
    if set(answer) != {"answers"} or type(answers) is not list or len(answers) > len(each):
        raise ProtocolBroken(BROKEN_PROTOCOL)
    return {
        "answers": [
            one if one == STOPPED else checked_answer(one, expected)
            for one, expected in zip(answers, each, strict=False)
        ]
    }


def value_answer(answer: object, kind: str) -> bool:
    """Whether `answer` is a value answer of a request of this kind."""
    if type(answer) is not dict:
        return False
    inputs = answer.get("inputs")
    return (
        kind in ("call", "method", "kept", "digest", "held", "inputs")
        and "ok" in answer
        and set(answer) <= CALL_KEYS
        and answer.get("tagged", True) is True
        # A digest of the arguments comes with an answer to a call that asked for one.
        and (kind == "inputs") == (inputs is not None)
        and (inputs is None or (type(inputs) is str and bool(DIGEST.fullmatch(inputs))))
    )


def same_handle(given: object, sent: object) -> bool:
    return type(given) is type(sent) is int and given == sent


def checked_raised(answer: dict[str, Any]) -> dict[str, str]:
    raised = answer["raised"]
    if set(answer) != {"raised"} or type(raised) is not dict or not set(raised) <= RAISED_KEYS:
        raise ProtocolBroken(BROKEN_PROTOCOL)
    if not all(type(raised.get(key, "")) is str for key in RAISED_KEYS):
        raise ProtocolBroken(BROKEN_PROTOCOL)
    if "type" not in raised or "message" not in raised:
        raise ProtocolBroken(BROKEN_PROTOCOL)
    shown = {
        "type": first_of(raised["type"], MAX_NAME),
        "message": first_of(raised["message"], MAX_MESSAGE),
    }
    if "builtin" in raised:
        shown["builtin"] = raised["builtin"][:MAX_NAME]
    return shown


@dataclass(frozen=True)
class LoadProblem:
    """A cell that failed while the submission was loaded, or the modules it may not import."""

    kind: str  # one of PROBLEM_KINDS
    message: str
    # The index of the cell it happened in, when it happened in one.
    cell: int | None = None
    # For `import_blocked`: the modules named (at most MAX_PROBLEMS, each cut to MAX_NAME).
    modules: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadAnswer:
    """What running a submission's cells reported, checked and bounded."""

    problems: tuple[LoadProblem, ...]
    defined: frozenset[str]
    # Problems past MAX_PROBLEMS, left out.
    left_out: int = 0


def load_answer(answer: dict[str, Any], cells: tuple[int, ...]) -> LoadAnswer:
    """The load answer, if it fits the cells sent: at most one problem per cell sent.

    A module outside the policy is the one problem of its answer, before any cell ran.
    """
    problems, defined = answer.get("problems"), answer.get("defined")
    if type(problems) is not list or type(defined) is not list:
        raise ProtocolBroken(BROKEN_PROTOCOL)
    if not all(type(name) is str for name in defined):
        raise ProtocolBroken(BROKEN_PROTOCOL)
    if len(problems) == 1 and blocked(problems[0]):
        modules = tuple(name[:MAX_NAME] for name in problems[0]["modules"][:MAX_PROBLEMS])
        problems_seen = [LoadProblem("import_blocked", problems[0]["message"], modules=modules)]
    else:
        problems_seen = cell_problems(problems, cells)
    kept = tuple(
        LoadProblem(
            problem.kind,
            first_of(problem.message, MAX_PROBLEM_MESSAGE),
            cell=problem.cell,
            modules=problem.modules,
        )
        for problem in problems_seen[:MAX_PROBLEMS]
    )
    return LoadAnswer(kept, frozenset(defined), max(0, len(problems_seen) - MAX_PROBLEMS))


def blocked(problem: object) -> bool:
    return (
        type(problem) is dict
        and problem.get("kind") == "import_blocked"
        and set(problem) == BLOCKED_KEYS
        and type(problem["message"]) is str
        and type(problem["modules"]) is list
        and all(type(name) is str for name in problem["modules"])
    )


def cell_problems(problems: list[Any], cells: tuple[int, ...]) -> list[LoadProblem]:
    """Problems of cells, each of a cell sent and named once."""
    if len(problems) > len(cells):
        raise ProtocolBroken(BROKEN_PROTOCOL)
    seen: list[LoadProblem] = []
    named: set[int] = set()
    for problem in problems:
        if (
            type(problem) is not dict
            or not {"cell", "kind", "message"} <= set(problem) <= PROBLEM_KEYS
            or problem["kind"] not in PROBLEM_KINDS[:4]
            or type(problem["message"]) is not str
            or type(problem["cell"]) is not int
            or problem["cell"] not in cells
            or problem["cell"] in named
            or type(problem.get("line")) not in (int, type(None))
        ):
            raise ProtocolBroken(BROKEN_PROTOCOL)
        named.add(problem["cell"])
        seen.append(LoadProblem(problem["kind"], problem["message"], problem["cell"]))
    return seen
