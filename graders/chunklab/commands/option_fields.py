"""Options declared once, as fields of a frozen dataclass, and the command line built from them.

Each field carries its flag, help text, choices and metavar in its metadata
(`option`, `switch`); `add_options` adds one argparse argument per field, in
the order the fields are declared, and `options_from` turns the parsed
arguments back into the dataclass. A field whose metadata names `nested`
stands for a group of options that builds its own arguments (`Limits`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import MISSING, Field, field, fields
from typing import Any, Protocol, TypeVar

from chunklab.errors import UsageError

Options = TypeVar("Options")


class NestedOptions(Protocol):
    """A group of options that declares its own arguments."""

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None: ...

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Any: ...


def option(
    flag: str,
    help: str,
    *,
    default: Any = None,
    default_factory: Callable[[], Any] | None = None,
    type: Callable[[str], Any] | None = None,
    choices: Sequence[str] | None = None,
    metavar: str | None = None,
) -> Any:
    """A field set by `flag VALUE`."""
    metadata = {"flag": flag, "help": help, "type": type, "choices": choices, "metavar": metavar}
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def switch(flag: str, help: str) -> Any:
    """A field that is True when `flag` is given."""
    return field(default=False, metadata={"flag": flag, "help": help, "switch": True})


def nested(options: type[NestedOptions]) -> Any:
    """A field holding a group of options that adds its own arguments."""
    return field(default_factory=options, metadata={"nested": options})


def default_of(each: Field[Any]) -> Any:
    if each.default_factory is not MISSING:
        return each.default_factory()
    return each.default


def add_options(parser: argparse.ArgumentParser, options: type[Any]) -> None:
    """One argument per field of `options`, in the order they are declared."""
    for each in fields(options):
        meta = each.metadata
        if "nested" in meta:
            meta["nested"].add_arguments(parser)
        elif meta.get("switch"):
            parser.add_argument(
                meta["flag"], dest=each.name, action="store_true", help=meta["help"]
            )
        else:
            settings = {key: meta[key] for key in ("type", "choices", "metavar") if meta[key]}
            parser.add_argument(
                meta["flag"],
                dest=each.name,
                default=default_of(each),
                help=meta["help"],
                **settings,
            )


def options_from(args: argparse.Namespace, options: type[Options]) -> Options:
    """The options the parsed arguments give."""
    values = {
        each.name: (
            each.metadata["nested"].from_arguments(args)
            if "nested" in each.metadata
            else getattr(args, each.name)
        )
        for each in fields(options)  # type: ignore[arg-type]
    }
    return options(**values)


def check_choices(options: Any) -> None:
    """A usage error for a value outside its field's choices.

    The parser refuses such a value already; this check holds for options made in code.
    """
    for each in fields(options):
        choices = each.metadata.get("choices")
        value = getattr(options, each.name)
        if choices and value is not None and value not in choices:
            raise UsageError(f"{each.metadata['flag']} must be {either(choices)}, not {value!r}")


def either(choices: Sequence[str]) -> str:
    """`full, rule or none`."""
    *most, last = choices
    return f"{', '.join(most)} or {last}" if most else last
