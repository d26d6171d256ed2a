"""States a lesson's rules as Markdown, grouped as the lesson text asks."""

from __future__ import annotations

import re

from chunklab.authoring.lesson_source import RuleGroup
from chunklab.suite_run.suite_contents import SuiteRule

PUBLIC_NOTE = "*(self-check)*"
LEFTOVER_TITLE = "More rules"

# Characters Markdown would read as formatting; rule text is meant literally. An
# underscore inside a word (min_chunk_size) is not formatting, so it stays readable.
MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]<>#|]|(?<!\w)_|_(?!\w))")


def literal(text: str) -> str:
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def grouped(
    rules: list[SuiteRule], groups: tuple[RuleGroup, ...]
) -> list[tuple[str, list[SuiteRule]]]:
    """Each rule in the first group that takes it; a rule no group takes goes last."""
    placed: dict[str, list[SuiteRule]] = {group.title: [] for group in groups}
    leftover: list[SuiteRule] = []
    for rule in rules:
        group = next((g for g in groups if g.takes(rule.text)), None)
        (placed[group.title] if group else leftover).append(rule)
    found = [(title, items) for title, items in placed.items() if items]
    return found + ([(LEFTOVER_TITLE, leftover)] if leftover else [])


def rules_markdown(rules: list[SuiteRule], groups: tuple[RuleGroup, ...]) -> str:
    if not rules:
        return "## The rules\n\nThe grader suite of this lesson states no rules yet."
    lines = [
        "## The rules",
        "",
        "Your work is graded on every rule below, each checked on several inputs. "
        f"The rules marked {PUBLIC_NOTE} are also checked by the self-check cell; the others "
        "are checked only when your work is graded, so try them yourself too.",
    ]
    for title, items in grouped(rules, groups):
        lines += ["", f"**{literal(title)}**", ""]
        lines += [f"- {literal(r.text)}" + (f" {PUBLIC_NOTE}" if r.public else "") for r in items]
    return "\n".join(lines)
