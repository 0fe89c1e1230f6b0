"""``handoff-codec encode``: items (JSON or JSON Lines) to a summary.

Writes the summary text, or with ``--message`` the assistant message as JSON,
or with ``--json`` ``{"summary": TEXT}``.
"""

from __future__ import annotations

import argparse

from ..format import EncodeError
from ._exits import EXIT_USAGE, CliError
from ._io import add_input_argument, add_json_argument, read_items, write_json, write_text
from ._options import add_codec_options, codec_from


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("encode", help="write the summary text for a list of items",
                                   usage="%(prog)s [options] [FILE]")
    add_input_argument(parser)
    parser.add_argument("--message", action="store_true",
                        help="write the assistant message as JSON instead of the text")
    add_json_argument(parser, '{"summary": TEXT}')
    add_codec_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.message and args.json:
        raise CliError("encode: --message and --json are alternatives (the message as JSON, "
                       "or the summary in a JSON object): give one", EXIT_USAGE)
    codec = codec_from(args)
    items = read_items(args.file, then="handoff-codec encode")
    try:
        if args.message:
            write_json(codec.summarize(items))
        elif args.json:
            write_json({"summary": codec.dumps(items)})
        else:
            write_text(codec.dumps(items) + "\n", "the summary")
    except EncodeError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    return 0
