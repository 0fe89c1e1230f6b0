"""``handoff-codec decode``: a summary (text or message JSON) to items."""

from __future__ import annotations

import argparse
import json

from .._errors import DecodeError
from . import CliError
from ._io import add_input_argument, read_text, write_json
from ._options import add_codec_options, codec_from


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("decode", help="read a summary back into items (JSON)")
    add_input_argument(parser)
    parser.add_argument("--strict", action="store_true",
                        help="accept only the current format, no legacy forms")
    add_codec_options(parser)
    parser.set_defaults(func=run)


def _summary_text(text: str) -> str:
    """The summary itself: the text, or the content of a message given as JSON."""
    if not text.lstrip().startswith("{"):
        return text.removesuffix("\n") if text.endswith("\n") else text
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        content: str = message["content"]
        return content
    return text


def run(args: argparse.Namespace) -> int:
    codec = codec_from(args)
    text = _summary_text(read_text(args.file))
    try:
        items = codec.loads(text, strict=args.strict)
    except DecodeError as exc:
        raise CliError(f"{args.file}:{exc.line}:{exc.column}: {exc.msg}") from None
    write_json(items)
    return 0
