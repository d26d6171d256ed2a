"""Reads a lesson's prose (`rules.md` in its lesson folder) into the parts of its notebook.

The file is Markdown with a few markers, each an HTML comment on a line of its own:

- `<!-- cell -->` starts a new Markdown cell (text runs on in one cell otherwise).
- A fenced block opened with ```` ```python kit ```` becomes a code cell that the kit
  owns (a demo); it must run without the student's solution.
- `<!-- rules ... -->` is where the rules gathered from the grader suites go. Each
  line inside names a group and what puts a rule in it: `Title: word | other words`
  (case-insensitive parts of the rule's text) or `Title: *` (every rule left over).
- `<!-- exercise -->` is where the stub goes; `<!-- self-check -->` the self-check.
- `<!-- hints -->` starts the hints: each `### Title` opens a hint, shown folded,
  up to the next heading of that level or the end of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from chunklab.errors import KitLayoutError
from chunklab.lessons import LESSONS_DIR

MARKER = re.compile(r"^<!--\s*(cell|rules|exercise|self-check|hints)\b(.*?)(-->)?\s*$")
KIT_FENCE = "```python kit"


@dataclass(frozen=True)
class Markdown:
    text: str


@dataclass(frozen=True)
class KitCode:
    source: str


@dataclass(frozen=True)
class RuleGroup:
    title: str
    # Lower-case pieces of rule text; empty means "every rule not yet placed".
    keys: tuple[str, ...]

    def takes(self, rule_text: str) -> bool:
        text = rule_text.lower()
        return not self.keys or any(key in text for key in self.keys)


@dataclass(frozen=True)
class Rules:
    groups: tuple[RuleGroup, ...]


@dataclass(frozen=True)
class Exercise:
    pass


@dataclass(frozen=True)
class SelfCheck:
    pass


@dataclass(frozen=True)
class Hint:
    title: str
    text: str


Part = Markdown | KitCode | Rules | Exercise | SelfCheck | Hint


def lesson_text_path(lesson_id: str) -> Path:
    return LESSONS_DIR / lesson_id / "rules.md"


def read_lesson_text(lesson_id: str) -> tuple[Part, ...]:
    path = lesson_text_path(lesson_id)
    if not path.is_file():
        raise KitLayoutError(f"the lesson text of {lesson_id} is missing: write {path}")
    parts = parse_lesson_text(path.read_text(encoding="utf-8"), path.name)
    check_parts(parts, path.name)
    return parts


def parse_lesson_text(text: str, name: str) -> tuple[Part, ...]:
    parts: list[Part] = []
    lines = text.splitlines()
    buffer: list[str] = []
    in_hints = False
    position = 0

    def flush() -> None:
        body = "\n".join(buffer).strip("\n")
        buffer.clear()
        if not body.strip():
            return
        parts.extend(split_hints(body) if in_hints else [Markdown(body)])

    while position < len(lines):
        line = lines[position]
        marker = MARKER.match(line.strip())
        if line.strip() == KIT_FENCE:
            flush()
            end = closing_fence(lines, position, name)
            parts.append(KitCode("\n".join(lines[position + 1 : end]).strip("\n")))
            position = end + 1
            continue
        if marker is None:
            buffer.append(line)
            position += 1
            continue
        flush()
        kind = marker.group(1)
        if kind == "rules":
            groups, position = rule_groups(lines, position, name)
            parts.append(Rules(groups))
            continue
        if kind == "exercise":
            parts.append(Exercise())
        elif kind == "self-check":
            parts.append(SelfCheck())
        elif kind == "hints":
            in_hints = True
        position += 1
    flush()
    return tuple(parts)


def closing_fence(lines: list[str], opening: int, name: str) -> int:
    for position in range(opening + 1, len(lines)):
        if lines[position].strip() == "```":
            return position
    raise KitLayoutError(f"{name}, line {opening + 1}: a ```python kit block is never closed")


def rule_groups(lines: list[str], opening: int, name: str) -> tuple[tuple[RuleGroup, ...], int]:
    """The group lines of a `<!-- rules ... -->` block, and the line after it."""
    first = lines[opening].strip()
    if first.endswith("-->"):
        return (RuleGroup("The rules", ()),), opening + 1
    groups: list[RuleGroup] = []
    for position in range(opening + 1, len(lines)):
        line = lines[position].strip()
        if line == "-->":
            return tuple(groups) or (RuleGroup("The rules", ()),), position + 1
        if not line:
            continue
        title, colon, keys = line.partition(":")
        if not colon:
            raise KitLayoutError(
                f"{name}, line {position + 1}: write a rule group as 'Title: words'"
            )
        parsed = tuple(k.strip().lower() for k in keys.split("|") if k.strip())
        groups.append(RuleGroup(title.strip(), () if parsed == ("*",) else parsed))
    raise KitLayoutError(f"{name}, line {opening + 1}: the rules block is never closed with -->")


def split_hints(body: str) -> list[Part]:
    lead, *pieces = re.split(r"^### ", body, flags=re.MULTILINE)
    # Text before the first hint (a word on how to use them) stays plain Markdown.
    hints: list[Part] = [Markdown(lead.strip("\n"))] if lead.strip() else []
    for piece in pieces:
        title, _, text = piece.partition("\n")
        hints.append(Hint(title.strip(), text.strip("\n")))
    return hints


def check_parts(parts: tuple[Part, ...], name: str) -> None:
    """Each placeholder exactly once, in the order the notebook needs, and some hints."""
    for kind in (Rules, Exercise, SelfCheck):
        count = sum(isinstance(part, kind) for part in parts)
        if count != 1:
            raise KitLayoutError(f"{name} must have one {kind.__name__} marker, not {count}")
    order = [
        next(i for i, p in enumerate(parts) if isinstance(p, k))
        for k in (Rules, Exercise, SelfCheck)
    ]
    if order != sorted(order):
        raise KitLayoutError(
            f"{name}: the markers must come in the order rules, exercise, self-check"
        )
    if not any(isinstance(part, Hint) for part in parts):
        raise KitLayoutError(f"{name} has no hints: add them after <!-- hints -->")
