"""Options shared by subcommands: the preamble and markers of the Codec."""

from __future__ import annotations

import argparse

from .._codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, Codec
from . import CliError


def add_codec_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("format")
    group.add_argument("--preamble", default=DEFAULT_PREAMBLE, help="the preamble line")
    group.add_argument("--start", default=DEFAULT_START, help="the start marker")
    group.add_argument("--end", default=DEFAULT_END, help="the end marker")


def codec_from(args: argparse.Namespace) -> Codec:
    try:
        return Codec(preamble=args.preamble, start=args.start, end=args.end)
    except ValueError as exc:
        raise CliError(str(exc)) from None
