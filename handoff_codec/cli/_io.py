"""Reading inputs and writing outputs for the CLI, with one-line errors.

What the CLI reads and writes can hold what a Python str holds and a stream
may not: a lone surrogate (``"\\ud800"`` in a JSON file), or any character
when standard output is not UTF-8. JSON goes out with such characters as
``\\uXXXX`` escapes, the same JSON value; a summary's text is checked
against the stream's encoding before a byte is written; everything else
(tables, notes, errors) is written with ``backslashreplace``
(:func:`safe_streams`). A number JSON cannot hand to Python (an integer of
more than ``sys.get_int_max_str_digits()`` digits) is invalid input.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO, TextIO

from ..format.write import SURROGATE
from . import EXIT_USAGE, CliError

__all__ = [
    "MAX_INPUT_BYTES",
    "add_input_argument",
    "add_json_argument",
    "load_json",
    "read_items",
    "read_text",
    "safe_streams",
    "write_json",
    "write_text",
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


def load_json(where: str, text: str) -> Any:
    """``json.loads(text)``; a CliError for what json refuses that is not a syntax error.

    ``json.JSONDecodeError`` (a syntax error) is raised as it is, for the
    caller to word or to try another reading. ``where`` names the input.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise CliError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # int(): more digits than sys.get_int_max_str_digits()
        raise CliError(f"{where}: invalid JSON: {_number_error(exc)}") from None


def _number_error(exc: ValueError) -> str:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if limit and "integer string conversion" in str(exc):
        return f"an integer of more than {limit} digits"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def read_items(name: str) -> list[dict[str, Any]]:
    """Items from a JSON list, a single JSON object, or JSON Lines."""
    text = read_text(name)
    if not text.strip():
        raise CliError(f"{name}: empty input, expected JSON or JSON Lines items")
    try:
        value = load_json(name, text)
    except json.JSONDecodeError:
        value = _json_lines(name, text)
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
            items.append(load_json(f"{name}:{number}", line))
        except json.JSONDecodeError as exc:
            raise CliError(f"{name}:{number}:{exc.colno}: invalid JSON: {exc.msg}") from None
    return items


def add_json_argument(parser: Any, what: str) -> None:
    """The ``--json`` flag: ``what`` as JSON on stdout, and errors as a JSON object."""
    parser.add_argument("--json", action="store_true",
                        help=f"print {what} as JSON on stdout (errors too, as "
                             '{"error": {"exit", "message"}})')


def _utf8(stream: TextIO) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value: Any, *, indent: int | None = 2, ascii_only: bool = False,
              default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as JSON that UTF-8 can hold: non-ASCII kept, but surrogates escaped.

    ``\\ud800`` is what ``json.dumps`` writes for a lone surrogate with
    ``ensure_ascii``, so the document reads back as the same value.
    """
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, default=default)
    if text.isascii():
        return text
    return SURROGATE.sub(_escaped, text)


def write_json(value: Any, *, indent: int | None = 2,
               default: Callable[[Any], Any] | None = None) -> None:
    """Write ``value`` as JSON and a newline to standard output.

    Non-ASCII is written as itself on a UTF-8 stream, as ``\\uXXXX`` on any
    other (so the document is always whole); surrogates are always escaped.
    """
    text = json_text(value, indent=indent, ascii_only=not _utf8(sys.stdout), default=default)
    sys.stdout.write(text + "\n")


def write_text(text: str, what: str) -> None:
    """Write ``text`` to standard output exactly, or raise a CliError naming ``what``.

    Nothing is written when the stream's encoding cannot hold every character.
    """
    stream = sys.stdout
    if not _utf8(stream) or (not text.isascii() and SURROGATE.search(text)):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            text.encode(encoding)
        except (UnicodeEncodeError, LookupError) as exc:
            bad = f" U+{ord(text[exc.start]):04X}" if isinstance(exc, UnicodeEncodeError) else ""
            raise CliError(f"standard output ({encoding}) cannot hold the character{bad} of "
                           f"{what}; set PYTHONIOENCODING=utf-8, or use --json") from None
    stream.write(text)


@contextmanager
def safe_streams() -> Iterator[None]:
    """Standard output and error write what their encoding cannot hold as escapes.

    ``errors="backslashreplace"`` while the block runs, then as before. JSON
    (:func:`write_json`) and summaries (:func:`write_text`) never need it; it
    keeps a table, a note or an error line from failing on a character.
    """
    saved: list[tuple[Any, str | None]] = []
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            saved.append((stream, stream.errors))
            reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            saved.pop()
    try:
        yield
    finally:
        for stream, errors in saved:
            with suppress(ValueError, OSError):
                stream.reconfigure(errors=errors)
