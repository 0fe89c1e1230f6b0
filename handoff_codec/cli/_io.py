"""Reading inputs and writing outputs for the CLI, with one-line errors."""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, BinaryIO

from . import EXIT_USAGE, CliError

__all__ = [
    "MAX_INPUT_BYTES",
    "add_input_argument",
    "add_json_argument",
    "read_items",
    "read_text",
    "write_json",
]

# The largest input file the CLI reads: twice the codec's default max_bytes
# (32 MiB), so that a summary of the largest default size still fits when it
# comes as a JSON message with escapes. Bigger files are refused by their
# size, before a byte is read; pipes and devices are read at most this far.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def add_input_argument(parser: Any) -> None:
    """The optional FILE argument; ``-`` or nothing reads standard input."""
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="input file (default: standard input)")


def _read_bounded(name: str, stream: BinaryIO, limit: int) -> bytes:
    info = os.fstat(stream.fileno())
    if stat.S_ISDIR(info.st_mode):
        raise CliError(f"{name}: is a directory")
    if stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise CliError(f"{name}: file too large ({info.st_size} bytes; the limit is {limit})")
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise CliError(f"{name}: input too large (over {limit} bytes)")
    return data


def read_text(name: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of file ``name`` (``-`` for stdin), or a CliError.

    Input over ``limit`` bytes is refused without reading it all.
    """
    try:
        if name == "-":
            data = _read_bounded("<stdin>", sys.stdin.buffer, limit)
        else:
            with open(name, "rb") as stream:
                data = _read_bounded(name, stream, limit)
    except FileNotFoundError:
        raise CliError(f"{name}: no such file", EXIT_USAGE) from None
    except IsADirectoryError:
        raise CliError(f"{name}: is a directory") from None
    except OSError as exc:
        raise CliError(f"{name}: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise CliError(f"{name}: binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"{name}: not UTF-8 (invalid byte at offset {exc.start})") from None


def read_items(name: str) -> list[dict[str, Any]]:
    """Items from a JSON list, a single JSON object, or JSON Lines."""
    text = read_text(name)
    if not text.strip():
        raise CliError(f"{name}: empty input, expected JSON or JSON Lines items")
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = _json_lines(name, text)
    except RecursionError:
        raise CliError(f"{name}: JSON nested too deeply") from None
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise CliError(f"{name}: item {index} is {type(item).__name__}, expected an object")
    return items


def _json_lines(name: str, text: str) -> list[Any]:
    items = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CliError(f"{name}:{number}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise CliError(f"{name}:{number}: JSON nested too deeply") from None
    return items


def add_json_argument(parser: Any, what: str) -> None:
    """The ``--json`` flag: ``what`` as JSON on stdout, and errors as a JSON object."""
    parser.add_argument("--json", action="store_true",
                        help=f"print {what} as JSON on stdout (errors too, as "
                             '{"error": {"exit", "message"}})')


def write_json(value: Any, *, indent: int | None = 2) -> None:
    """Write ``value`` as JSON and a newline to standard output."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=indent) + "\n")
