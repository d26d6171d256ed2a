"""The class's HTML pages rendered from the Jinja2 templates in `templates/`.

Every value a template prints (`{{ ... }}`) is first made inert (`html_page.inert`:
a control, a bidirectional override or an invisible character shows as a
visible stand-in) and then HTML-escaped, quotes included. Only markup passes
as it is: what a macro of the templates writes, and the chunk picture
(`student.showing`, which escapes its own text). A student's string is a
value, never template source: `{{ 7*7 }}` in a name shows as those characters.
Print a student's string with `{{ value }}` alone: filters that make markup
(`|join`, `|e`, `~` next to markup) escape it without making it inert.

How a template is laid out is not how the page is: a line break followed by
indentation is layout only, the indented line continues the one above. A
line holding only a block tag (`{% for ... %}`) writes nothing. So a table
reads as nested lines in its template and is one line of the page.

Jinja2 is imported with this module, which only the writers of pages import.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.ext import Extension
from markupsafe import Markup

from chunklab.class_out.html_page import esc, href, percent, points
from chunklab.student.showing import ChunkPicture, html_picture

TEMPLATES = Path(__file__).parent / "templates"
# A line break and the indentation after it, in a template's source; a comment as it is.
CONTINUED_LINE = re.compile(r"(\{#.*?#\})|\n[ \t]+", re.DOTALL)


class IndentedLinesContinue(Extension):
    """An indented line of a template continues the line above it (`.j2` files only)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if name is None or not name.endswith(".j2"):
            return source  # the stylesheet is copied as it is
        # Each line break goes into a comment, so an error still names its template's line.
        return CONTINUED_LINE.sub(lambda found: found.group(1) or "{#\n#}", source)


def shown(value: object) -> Markup:
    """What a template prints: markup as it is, any other value inert and escaped."""
    if isinstance(value, Markup):
        return value
    return Markup(esc(value))


def link(path: str) -> Markup:
    return Markup(href(path))


def picture(chunks: ChunkPicture) -> Markup:
    return Markup(html_picture(chunks))


@cache
def environment() -> jinja2.Environment:
    made = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        finalize=shown,
        extensions=[IndentedLinesContinue],
    )
    made.filters.update(points=points, percent=percent, link=link, picture=picture)
    return made


def render(template: str, **data: Any) -> str:
    """The page (or section) `template` makes of `data`."""
    return environment().get_template(template).render(**data)
