"""Reading inputs and writing outputs for the CLI, with one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from . import CliError

__all__ = ["add_input_argument", "read_items", "read_text", "write_json"]


def add_input_argument(parser: Any) -> None:
    """The optional FILE argument; ``-`` or nothing reads standard input."""
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="input file (default: standard input)")


def read_text(name: str) -> str:
    """The UTF-8 text of file ``name`` (``-`` for stdin), or a CliError."""
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except FileNotFoundError:
        raise CliError(f"{name}: no such file") from None
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


def write_json(value: Any, *, indent: int | None = 2) -> None:
    """Write ``value`` as JSON and a newline to standard output."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=indent) + "\n")
