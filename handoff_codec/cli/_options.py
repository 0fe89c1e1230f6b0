"""What subcommands share: the Codec's options, numeric option types, listed rows."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, Codec
from ._exits import EXIT_USAGE, CliError

T = TypeVar("T")
LIST_LIMIT = 20  # rows listed in a text summary; --json lists them all


def add_codec_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("format")
    group.add_argument("--preamble", default=DEFAULT_PREAMBLE, help="the preamble line")
    group.add_argument("--start", default=DEFAULT_START, help="the start marker")
    group.add_argument("--end", default=DEFAULT_END, help="the end marker")


def codec_from(args: argparse.Namespace) -> Codec:
    try:
        return Codec(preamble=args.preamble, start=args.start, end=args.end)
    except ValueError as exc:  # markers the format cannot use: a bad value, usage
        raise CliError(str(exc), EXIT_USAGE) from None


def at_least(convert: Callable[[str], Any], minimum: float) -> Callable[[str], Any]:
    """An argparse type: ``convert(text)``, refused below ``minimum``."""
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value >= minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum:g}")
        return value

    return parse


def where(place: str, index: int | None, turn: int | None = None) -> str:
    """A row (``place``), and the element of its list and the record of its summary, if any."""
    if index is not None:
        place += f" item {index}"
    if turn is not None:
        place += f" record {turn + 1}"
    return place


def listed(entries: Sequence[T], line: Callable[[T], str]) -> list[str]:
    """One indented line per entry, the first LIST_LIMIT of them, and how many more."""
    lines = [f"    {line(entry)}" for entry in entries[:LIST_LIMIT]]
    if len(entries) > LIST_LIMIT:
        lines.append(f"    ... and {len(entries) - LIST_LIMIT} more (see --json)")
    return lines
