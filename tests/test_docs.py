"""The README and the docs pages: every relative link resolves, every command shown exists."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from chunklab.cli import build_parser
from tests.conftest import KIT_ROOT

PAGES = sorted(
    [KIT_ROOT / "README.md", KIT_ROOT / "CHANGELOG.md", KIT_ROOT / "benchmarks" / "README.md"]
    + list((KIT_ROOT / "docs").glob("*.md"))
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to `-`."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def relative_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(KIT_ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert page.is_file()
    for link in relative_links(page):
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{page.name}: {link} names no file"
        if anchor:
            assert anchor in anchors(path), f"{page.name}: {link} names no heading"


def test_the_readme_is_the_front_door() -> None:
    readme = KIT_ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 200
    linked = {(readme.parent / link.partition("#")[0]).resolve() for link in relative_links(readme)}
    unlinked = [p.name for p in (KIT_ROOT / "docs").glob("*.md") if p.resolve() not in linked]
    assert unlinked == [], "every docs page is in the README's index"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def shown_commands() -> list[list[str]]:
    """Each `chunklab ...` command line in a README code block, split as a shell would."""
    text = (KIT_ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            for part in re.split(r"&&|\|", line):
                words = shlex.split(part)
                if words[:1] == ["chunklab"]:
                    found.append(words[1:])
    return found


def test_every_command_the_readme_shows_exists() -> None:
    commands = subcommands(build_parser())
    shown = shown_commands()
    assert len(shown) >= 8
    for words in shown:
        assert words[0] in commands, f"chunklab {words[0]} is no command"
        options = set(commands[words[0]]._option_string_actions)
        for word in words[1:]:
            if word.startswith("--"):
                assert word.split("=")[0] in options, f"chunklab {words[0]} has no {word}"
