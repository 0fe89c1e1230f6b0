"""``handoff-codec replay``: items to the request body a provider's own API takes."""

from __future__ import annotations

import argparse
import base64
import sys
from typing import Any

from ._exits import EXIT_USAGE, CliError
from ._io import add_input_argument, add_json_argument, read_items, write_json

# The targets of ``to_provider``; kept here so that --help loads no converter.
PROVIDERS = ("chat_completions", "anthropic", "gemini", "bedrock")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help="convert items (JSON or JSON Lines) to a provider's native request body",
        usage="%(prog)s --target T [options] [FILE]",
        description="Print the native request body (JSON) for the target: messages and "
                    "system for anthropic and bedrock, contents and system_instruction for "
                    "gemini. Notes on merged turns go to stderr. Exit 1 with the problem "
                    "when the items cannot be replayed; 2 for usage errors. With --json, "
                    "errors too come as JSON on stdout. Summary text is not items: "
                    "handoff-codec decode reads it into items first.")
    add_input_argument(parser)
    parser.add_argument("--target", choices=PROVIDERS, required=True,
                        help="the provider API to write for")
    parser.add_argument("--placeholder", default=None,
                        help="text for an empty turn the target rejects (default: '.')")
    parser.add_argument("--quiet", action="store_true", help="do not print notes on stderr")
    add_json_argument(parser, "the request body (as without it)")
    parser.set_defaults(func=run)


def _bytes_as_base64(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def run(args: argparse.Namespace) -> int:
    from ..replay import ReplayError, to_provider

    items = read_items(args.file, then=f"handoff-codec replay --target {args.target}")
    try:
        conversion = to_provider(items, args.target, placeholder=args.placeholder)
    except ReplayError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    except ValueError as exc:  # a placeholder the target rejects
        raise CliError(str(exc), EXIT_USAGE) from None
    if not args.quiet:
        for note in conversion.notes:
            where = "-" if note.index is None else f"item {note.index}"
            print(f"handoff-codec: note: {where}: {note.code}: {note.message}", file=sys.stderr)
    write_json(conversion.request, default=_bytes_as_base64)
    return 0
