"""``handoff-codec decode``: a summary (text or message JSON) to items.

The items go to stdout as JSON. On stderr: ``FILE: current format``, or for an
older one the writers the text allows and how many things they could not
record (once, in words; ``--json`` has the ``format`` label, the ``writers``
and the ``unkept`` list), then one line per recovery the lenient reader
made, ``FILE:LINE: KIND: MESSAGE``. A read
that lost information (a recovery with ``lost``, or a line read into no item)
exits 3 unless ``--allow-loss``; the items are printed either way.

``--json`` prints ``{"items": [...], "format": F, "recoveries": [{"line",
"kind", "message", "lost"}, ...], "writers": [...], "unkept": [...],
"candidates": [{"reading", "items"}, ...]}`` and the keys of every report
(``_report``: each recovery is a problem, an ``error`` when it makes the read
lossy) instead of the bare items. Stderr also names each other reading an
``ambiguous`` recovery stands for. On stderr the report ends with its counts,
``FILE: N items; R recoveries (L lost)``, and after a lossy read the command
that accepts it (``next:``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from ..format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, DecodeError, RecoveryKind
from ._exits import EXIT_LOSSY, EXIT_OK, CliError
from ._io import add_input_argument, add_json_argument, load_json, read_text, write_json
from ._options import add_codec_options, codec_from
from ._report import next_line, problem, shape


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decode", help="read a summary back into items (JSON)",
        usage="%(prog)s [options] [FILE]",
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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _accept_command(args: argparse.Namespace) -> str:
    """This command line with ``--allow-loss``: the next step after a lossy read."""
    words = ["handoff-codec", "decode", "--allow-loss"]
    words += [flag for flag, on in (("--strict", args.strict), ("--json", args.json)) if on]
    for name, default in (("preamble", DEFAULT_PREAMBLE), ("start", DEFAULT_START),
                          ("end", DEFAULT_END)):
        if getattr(args, name) != default:
            words += [f"--{name}", getattr(args, name)]
    if args.file != "-":
        words.append(args.file)
    return shlex.join(words)


def about_the_writer(decoded: Any) -> list[str]:
    """Who wrote the text and what it could not record, said once, in a user's words."""
    if decoded.format.value == "current":
        return ["current format"]
    lines = ["an older format" + (f", written by {'; or '.join(decoded.writers)}"
                                  if decoded.writers else "")]
    if decoded.unkept:
        count = len(decoded.unkept)
        things = "1 thing" if count == 1 else f"{count} things"
        lines.append(f"{things} that writer could not record are not in the text (--json "
                     "lists them as \"unkept\"); the lines below say where that matters")
    return lines


def run(args: argparse.Namespace) -> int:
    codec = codec_from(args)
    name = "<stdin>" if args.file == "-" else args.file
    text = _summary_text(name, read_text(args.file))
    try:
        decoded = codec.decode(text, strict=args.strict)
    except DecodeError as exc:
        hint = ""
        if _json_items(text):
            hint = ("; this is JSON items, not a summary: `handoff-codec encode` writes "
                    "their summary")
        raise CliError(f"{name}:{exc.line}:{exc.column}: {exc.msg}{hint}") from None
    for line in about_the_writer(decoded):
        print(f"{name}: {line}", file=sys.stderr)
    problems = []
    for recovery in decoded.recoveries:
        print(f"{name}:{recovery.line}: {recovery.kind.value}: {recovery.message}",
              file=sys.stderr)
        lossy = recovery.lost or recovery.kind is RecoveryKind.UNRECOGNISED
        problems.append(problem(f"line {recovery.line}", recovery.kind.value,
                                recovery.message, "error" if lossy else "info",
                                line=recovery.line))
    for candidate in decoded.candidates:
        print(f"{name}: another reading ({candidate.reading}): "
              f"{len(candidate.items)} item(s); --json gives its items", file=sys.stderr)
    lost = sum(p["severity"] == "error" for p in problems)
    lossy_read = not (decoded.lossless and decoded.complete)
    code = EXIT_LOSSY if lossy_read and not args.allow_loss else EXIT_OK
    following = _accept_command(args) if code == EXIT_LOSSY else None
    if args.json:
        report: dict[str, Any] = decoded.model_dump(mode="json")
        report.update(shape(exit_code=code, items=len(decoded.items), problems=problems,
                            counts={"recoveries": len(problems), "lost": lost},
                            next_command=following))
        write_json(report)
    else:
        write_json(decoded.items)
    print(f"{name}: {_plural(len(decoded.items), 'item')}; "
          f"{len(problems)} recover{'y' if len(problems) == 1 else 'ies'} ({lost} lost)",
          file=sys.stderr)
    if code == EXIT_LOSSY:
        print(f"{name}: the read lost information (see above); --allow-loss accepts it",
              file=sys.stderr)
    for line in next_line(following):
        print(line, file=sys.stderr)
    return code


def _json_items(text: str) -> bool:
    """Whether ``text`` is a JSON object or a list of them (items): only to say so."""
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return False
    value = value if isinstance(value, list) else [value]
    return bool(value) and all(isinstance(item, dict) for item in value)
