"""The ``handoff-codec`` command line.

Each subcommand lives in its own module here and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
Errors print one line on stderr: exit 1 for bad input, 2 for usage.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

__all__ = ["main"]

COMMANDS = ("encode", "decode", "validate", "migrate", "replay")


class CliError(Exception):
    """A one-line error for the user; ``main`` prints it and exits 1."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    parser = argparse.ArgumentParser(
        prog="handoff-codec",
        description="Encode, decode, migrate and validate nested handoff-history summaries.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}._{name}").register(subparsers)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except CliError as exc:
        print(f"handoff-codec: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("handoff-codec: interrupted", file=sys.stderr)
        return 130
    return code
