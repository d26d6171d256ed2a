"""What a survivor (a mutant at full marks) is: a gap in the suites, allowed, or equivalent.

The survivor and the reference answer every input of the lesson's rule checker:
exhaustive small inputs first, then the hidden inputs. Where their answers
differ, the checker says whether the survivor's breaks a stated rule. The first
such input (the smallest, as the inputs grow) makes it a gap; a survivor that
only ever differs where the rules allow is allowed; one that never differs is a
candidate for an equivalent mutant.

Each survivor runs in a process of its own kind (`examine_all`), its memory
bounded and each call stopped when it runs past its CPU time.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from chunklab.mutation.calls import Answer, Case
from chunklab.mutation.pipeline_rules import PipelineRules
from chunklab.mutation.window_rules import CharChunkRules, WordChunkRules

GAP, ALLOWED, EQUIVALENT = "gap", "allowed", "equivalent"
UNEXAMINED = "not examined"
# Memory a survivor's process may use: far more than any small input needs.
MEMORY_BYTES = 2 << 30


class RuleChecker(Protocol):
    def cases(self, hidden: list[tuple]) -> Iterator[Case]: ...

    def answer(self, code: ModuleType, case: Case) -> Answer: ...

    def broken(self, case: Case, answer: Answer) -> str | None: ...


RULES: dict[str, type[RuleChecker]] = {
    "char_chunk": CharChunkRules,
    "word_chunk": WordChunkRules,
    "chunking_pipeline": PipelineRules,
}


@dataclass(frozen=True)
class Finding:
    """What the rule checker found; for a gap or an allowed difference, on which input."""

    kind: str
    call: str = ""
    rule: str = ""
    got: str = ""
    reference: str = ""


def hidden_inputs(lesson: str) -> list[tuple]:
    """The hidden inputs kept with the lesson's suites, every set of them, as tuples."""
    from chunklab.lessons import get_lesson
    from chunklab.suites.kept_inputs import INPUTS_FILE, as_tuples, read_inputs_file

    inputs = read_inputs_file(get_lesson(lesson).folder / INPUTS_FILE)["inputs"]
    return [as_tuples(case) for name in sorted(inputs) for case in inputs[name]]


def loaded(source: str, name: str) -> ModuleType:
    module = ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


class ReferenceAnswers:
    """The checker's inputs with the reference's answers, each made when first needed and kept."""

    def __init__(self, lesson: str, reference_source: str) -> None:
        self.rules = RULES[lesson]()
        self.reference = loaded(reference_source, "reference")
        self.waiting = iter(self.rules.cases(hidden_inputs(lesson)))
        self.known: list[tuple[Case, Answer]] = []

    def __iter__(self) -> Iterator[tuple[Case, Answer]]:
        for k in itertools.count():
            if k == len(self.known):
                case = next(self.waiting, None)
                if case is None:
                    return
                self.known.append((case, self.rules.answer(self.reference, case)))
            yield self.known[k]


@functools.lru_cache(maxsize=len(RULES))
def reference_answers(lesson: str, reference_source: str) -> ReferenceAnswers:
    """Made once in each process: every survivor of a lesson meets the same answers."""
    return ReferenceAnswers(lesson, reference_source)


def examine(lesson: str, source: str, reference_source: str) -> Finding:
    """A survivor against the reference on every input of the lesson's rule checker."""
    rules = RULES[lesson]()
    mutant = loaded(source, "mutant")
    allowed: Finding | None = None
    for case, theirs in reference_answers(lesson, reference_source):
        mine = rules.answer(mutant, case)
        if mine.same_as(theirs):
            continue
        rule = rules.broken(case, mine)
        if rule is not None:
            return Finding(GAP, case.call, rule, mine.shown(), theirs.shown())
        allowed = allowed or Finding(ALLOWED, case.call, "", mine.shown(), theirs.shown())
    return allowed or Finding(EQUIVALENT)


def reference_problem(lesson: str, reference_source: str) -> Finding | None:
    """The first input where the reference breaks a rule: a fault of the checker or of the
    reference, either way no survivor can be judged by it."""
    rules = RULES[lesson]()
    for case, answer in reference_answers(lesson, reference_source):
        rule = rules.broken(case, answer)
        if rule is not None:
            return Finding(GAP, case.call, rule, answer.shown(), answer.shown())
    return None


def bound_memory() -> None:
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_BYTES, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def examine_all(
    work: list[tuple[str, str]], references: dict[str, str], jobs: int
) -> tuple[list[Finding], dict[str, Finding | None]]:
    """Each (lesson, source) survivor's finding, and each lesson's reference problem or None."""
    from chunklab.pipeline.parallel import process_context

    with ProcessPoolExecutor(jobs, mp_context=process_context(), initializer=bound_memory) as pool:
        # The reference is checked where some survivor needs it.
        needed = dict.fromkeys(lesson for lesson, _ in work)
        checks = {
            lesson: pool.submit(reference_problem, lesson, references[lesson]) for lesson in needed
        }
        found = [
            pool.submit(examine, lesson, source, references[lesson]) for lesson, source in work
        ]
        findings = [outcome(future) for future in found]
        problems = {
            lesson: outcome_or_none(checks[lesson]) if lesson in checks else None
            for lesson in references
        }
    return findings, problems


def outcome(future: Any) -> Finding:
    try:
        return future.result()
    except Exception as error:  # a process that died: its survivor stays unjudged
        return Finding(UNEXAMINED, rule=f"{type(error).__name__}: {error}")


def outcome_or_none(future: Any) -> Finding | None:
    try:
        return future.result()
    except Exception as error:
        return Finding(UNEXAMINED, rule=f"{type(error).__name__}: {error}")
