"""The hidden inputs of a lesson, as the kit keeps them: data drawn once, with a digest.

Each lesson folder that has random hidden inputs holds `hidden_inputs.json`,
written by `python -m chunklab.authoring.build_hidden_inputs` from the
Hypothesis strategies in the folder's `hidden_inputs.py`. Grading only reads
the file: no library installed where grading runs can change an input, and
Hypothesis need not be installed there at all. The file carries the SHA-256 of
its inputs; an edited or damaged file stops grading with a `HiddenInputsError`,
it is never graded with.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from chunklab.errors import KitLayoutError

INPUTS_FILE = "hidden_inputs.json"
REBUILD = "python -m chunklab.authoring.build_hidden_inputs"


class HiddenInputsError(KitLayoutError):
    """A lesson's hidden inputs file is missing, damaged or edited by hand."""

    kind = "hidden_inputs"


def inputs_digest(inputs: dict[str, list[Any]]) -> str:
    """The SHA-256 of the inputs, written canonically (sorted keys, ASCII, no spaces)."""
    canonical = json.dumps(inputs, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def as_tuples(value: Any) -> Any:
    """JSON turns tuples into lists; the inputs are tuples again."""
    return tuple(as_tuples(v) for v in value) if isinstance(value, list) else value


def read_inputs_file(path: Path) -> dict[str, Any]:
    """The file's data, after checking its digest; `HiddenInputsError` when it is not whole."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HiddenInputsError(f"{path} is missing; make it with `{REBUILD}`") from None
    except (OSError, ValueError) as error:
        raise HiddenInputsError(
            f"{path} cannot be read ({error}); make it again with `{REBUILD}`"
        ) from None
    inputs = data.get("inputs") if isinstance(data, dict) else None
    if not isinstance(inputs, dict) or not all(isinstance(v, list) for v in inputs.values()):
        raise HiddenInputsError(f"{path} holds no inputs; make it again with `{REBUILD}`")
    if data.get("digest") != inputs_digest(inputs):
        raise HiddenInputsError(
            f"the inputs in {path} do not match their digest (edited or damaged); "
            f"restore the file from the kit or make it again with `{REBUILD}`"
        )
    return data


def hidden_inputs(suite_file: str, name: str) -> list[Any]:
    """The inputs called `name` in the hidden inputs file beside `suite_file`, as tuples.

    `VALID_CALLS = hidden_inputs(__file__, "valid_calls")` in a hidden test file.
    """
    path = Path(suite_file).with_name(INPUTS_FILE)
    inputs = read_inputs_file(path)["inputs"]
    if name not in inputs:
        raise HiddenInputsError(f"{path} has no inputs called {name!r}; run `{REBUILD}`")
    return [as_tuples(case) for case in inputs[name]]
