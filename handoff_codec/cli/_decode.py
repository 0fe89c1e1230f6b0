"""``handoff-codec decode``: a summary (text or message JSON) to items.

The items go to stdout as JSON. On stderr: ``FILE: format: F`` and one line
per recovery the lenient reader made, ``FILE:LINE: KIND: MESSAGE``. A read
that lost information (a recovery with ``lost``, or a line read into no item)
exits 3 unless ``--allow-loss``; the items are printed either way.

``--json`` prints ``{"items": [...], "format": F, "recoveries": [{"line",
"kind", "message", "lost"}, ...], "writers": [...], "unkept": [...],
"candidates": [{"reading", "items"}, ...]}`` instead of the bare items. For a
text outside the current format, stderr names the writers the text allows
(``FILE: written by: ...``) and what they could not keep (``FILE: cannot
hold: ...``), and each other reading an ``ambiguous`` recovery stands for.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..format import DecodeError
from . import EXIT_LOSSY, EXIT_OK, CliError
from ._io import add_input_argument, add_json_argument, load_json, read_text, write_json
from ._options import add_codec_options, codec_from


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decode", help="read a summary back into items (JSON)",
        description="Read a summary back into items. Recoveries go to stderr; a lossy "
                    "read exits 3 unless --allow-loss.")
    add_input_argument(parser)
    parser.add_argument("--strict", action="store_true",
                        help="accept only the current format, no legacy forms")
    parser.add_argument("--allow-loss", action="store_true",
                        help="exit 0 even when the read lost information (default: exit 3)")
    add_json_argument(parser, "{items, format, recoveries, writers, unkept, candidates}")
    add_codec_options(parser)
    parser.set_defaults(func=run)


def _summary_text(name: str, text: str) -> str:
    """The summary itself: the text, or the content of a message given as JSON."""
    if not text.lstrip().startswith("{"):
        return text.removesuffix("\n") if text.endswith("\n") else text
    try:
        message = load_json(name, text)
    except json.JSONDecodeError:
        return text
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        content: str = message["content"]
        return content
    return text


def run(args: argparse.Namespace) -> int:
    codec = codec_from(args)
    name = "<stdin>" if args.file == "-" else args.file
    text = _summary_text(name, read_text(args.file))
    try:
        decoded = codec.decode(text, strict=args.strict)
    except DecodeError as exc:
        raise CliError(f"{name}:{exc.line}:{exc.column}: {exc.msg}") from None
    print(f"{name}: format: {decoded.format.value}", file=sys.stderr)
    if decoded.writers:
        print(f"{name}: written by: {'; or '.join(decoded.writers)}", file=sys.stderr)
    for unkept in decoded.unkept:
        print(f"{name}: cannot hold: {unkept}", file=sys.stderr)
    for recovery in decoded.recoveries:
        print(f"{name}:{recovery.line}: {recovery.kind.value}: {recovery.message}",
              file=sys.stderr)
    for candidate in decoded.candidates:
        print(f"{name}: another reading ({candidate.reading}): {len(candidate.items)} "
              "item(s); --json gives its items", file=sys.stderr)
    if args.json:
        write_json(decoded.model_dump(mode="json"))
    else:
        write_json(decoded.items)
    lossy = not (decoded.lossless and decoded.complete)
    if lossy and not args.allow_loss:
        print(f"{name}: the read lost information (see above); --allow-loss accepts it",
              file=sys.stderr)
        return EXIT_LOSSY
    return EXIT_OK
