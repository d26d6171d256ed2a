"""Draws the hidden inputs of every lesson once and writes them as data: `hidden_inputs.json`.

A lesson folder's `hidden_inputs.py` names its Hypothesis strategies and how
many inputs to draw from each (`DRAWS`). The draw is seeded, so drawing again
with the same Hypothesis gives the same inputs; the file records the digest of
the strategies' source it was drawn from, the Hypothesis version and the
SHA-256 of the inputs. Grading reads the file (`chunklab.suites.kept_inputs`)
and never draws. Run `python -m chunklab.authoring.build_hidden_inputs` after
changing a strategy or a count (Hypothesis comes with the test extra); a kit
test fails while a file is out of date.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from chunklab.errors import KitLayoutError
from chunklab.lessons import LESSONS, Lesson
from chunklab.suites.kept_inputs import INPUTS_FILE, inputs_digest

STRATEGIES_MODULE = "hidden_inputs"
ABOUT = (
    "The hidden inputs of this lesson, drawn once from the strategies in hidden_inputs.py by "
    "`python -m chunklab.authoring.build_hidden_inputs`. Do not edit: grading checks the digest."
)


class HypothesisMissingError(KitLayoutError):
    """Drawing the hidden inputs needs Hypothesis, which grading does not."""

    kind = "hypothesis_missing"


def strategies_of(lesson: Lesson) -> ModuleType | None:
    """The lesson's strategies module, or None when the lesson has no random hidden inputs."""
    if not (lesson.folder / f"{STRATEGIES_MODULE}.py").is_file():
        return None
    return importlib.import_module(f"chunklab.suites.{lesson.id}.{STRATEGIES_MODULE}")


def draws_of(module: ModuleType) -> dict[str, tuple[Callable[[], Any], int]]:
    draws = getattr(module, "DRAWS", None)
    if not isinstance(draws, dict):
        raise KitLayoutError(f"{module.__file__} must define DRAWS: name -> (strategy, count)")
    return draws


def strategies_digest(module: ModuleType) -> str:
    """What the inputs were drawn from: the strategies' source, names and counts."""
    source = Path(str(module.__file__)).read_bytes()
    counts = json.dumps({name: count for name, (_, count) in sorted(draws_of(module).items())})
    return "sha256:" + hashlib.sha256(source + b"\0" + counts.encode()).hexdigest()


@contextlib.contextmanager
def only_hypothesis_own_constants() -> Iterator[None]:
    """Draws that depend on the strategy alone, not on what else this process has loaded.

    Hypothesis mixes into its draws constants read from every "local" module
    loaded at the time: the kit itself when it is installed editable, say. The
    inputs would then differ with how the kit is installed. Here Hypothesis sees
    no local module (where its version has this feature).
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        yield
        return
    get_local = getattr(providers, "_get_local_constants", None)
    constants = getattr(providers, "Constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if get_local is None or constants is None:
        yield
        return

    def forget() -> None:
        # Permitted constants are cached with the local ones of the moment.
        with contextlib.suppress(AttributeError):
            cache.cache.clear()  # type: ignore[union-attr]

    providers._get_local_constants = constants
    forget()
    try:
        yield
    finally:
        providers._get_local_constants = get_local
        forget()


def draw_cases(strategy: Any, count: int) -> list[Any]:
    """`count` inputs from a strategy: seeded, so the same every time with one Hypothesis."""
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis.configuration import set_hypothesis_home_dir
    except ImportError:
        raise HypothesisMissingError(
            "drawing the hidden inputs needs Hypothesis: pip install -e '.[test]'"
        ) from None

    drawn: list[Any] = []

    @settings(
        max_examples=count,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(case: Any) -> None:
        drawn.append(case)

    with tempfile.TemporaryDirectory(prefix="chunklab-hypothesis-") as home:
        # Hypothesis keeps caches in `./.hypothesis`; drawing must not litter the checkout.
        set_hypothesis_home_dir(home)
        with only_hypothesis_own_constants():
            collect()
    return [as_lists(case) for case in drawn]


def as_lists(value: Any) -> Any:
    """A drawn input as JSON keeps it: tuples as lists."""
    return [as_lists(v) for v in value] if isinstance(value, tuple | list) else value


def hidden_inputs_data(module: ModuleType) -> dict[str, Any]:
    """What the lesson's `hidden_inputs.json` holds, drawn now."""
    inputs = {
        name: draw_cases(strategy(), count) for name, (strategy, count) in draws_of(module).items()
    }
    return {
        "about": ABOUT,
        "drawn_from": strategies_digest(module),
        "hypothesis": importlib.metadata.version("hypothesis"),
        "digest": inputs_digest(inputs),
        "inputs": inputs,
    }


def hidden_inputs_text(data: dict[str, Any]) -> str:
    """The file's text: one input a line, ASCII only (an unusual character shows as its escape)."""

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True)

    head = [f" {line(key)}: {line(value)}," for key, value in data.items() if key != "inputs"]
    groups = [
        f"  {line(name)}: [\n" + ",\n".join(f"   {line(case)}" for case in cases) + "\n  ]"
        for name, cases in data["inputs"].items()
    ]
    return "{\n" + "\n".join(head) + '\n "inputs": {\n' + ",\n".join(groups) + "\n }\n}\n"


def main() -> int:
    for lesson in LESSONS.values():
        module = strategies_of(lesson)
        if module is None:
            continue
        path = lesson.folder / INPUTS_FILE
        try:
            path.write_text(hidden_inputs_text(hidden_inputs_data(module)), encoding="utf-8")
        except HypothesisMissingError as error:
            print(f"chunklab: {error}", file=sys.stderr)
            return 1
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
