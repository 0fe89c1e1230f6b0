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
import shlex
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO, TextIO

from ..format import DEFAULT_END, DEFAULT_START
from ..format.write import SURROGATE
from ._exits import EXIT_USAGE, CliError

__all__ = [
    "MAX_INPUT_BYTES",
    "add_input_argument",
    "add_json_argument",
    "load_json",
    "read_items",
    "read_text",
    "report_error",
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
        raise CliError(f"{name}: is a directory, not a file", EXIT_USAGE)
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
        raise CliError(f"{name}: is a directory, not a file", EXIT_USAGE) from None
    except OSError as exc:
        raise CliError(f"{name}: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise CliError(f"{name}: binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CliError(f"{name}: not UTF-8 (invalid byte at offset {exc.start})") from None


class _DuplicateKey(ValueError):
    """An object that names one key twice (json keeps the last value, silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _DuplicateKey
    return value


# A JSON string, or one character of JSON's structure; anything else is skipped.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]', re.S)


def duplicate_key(text: str) -> tuple[str, int] | None:
    """The first key an object of the JSON ``text`` names twice, and its offset; or None."""
    stack: list[set[str] | None] = []  # per open object, its keys; None for an array
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "{":
            stack.append(set())
            expect_key = True
        elif token == "[":
            stack.append(None)
        elif token in "]}":
            if stack:
                stack.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(stack) and stack[-1] is not None
        elif token == ":":
            expect_key = False
        elif expect_key and stack and (keys := stack[-1]) is not None:
            key = json.loads(token)
            if key in keys:
                return key, match.start()
            keys.add(key)
            expect_key = False
    return None


def _column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def load_json(where: str, text: str, *, line: int | None = None) -> Any:
    """``json.loads(text)``; a CliError for what json refuses that is not a syntax error.

    ``json.JSONDecodeError`` (a syntax error) is raised as it is, for the
    caller to word or to try another reading. ``where`` names the input;
    ``line`` is the line ``text`` is in it (JSON Lines). An object that names
    a key twice is refused, with the key and its line and column: json would
    keep the last value and drop the other without a word.
    """
    at = where if line is None else f"{where}:{line}"
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError:
        raise
    except _DuplicateKey:
        key, offset = duplicate_key(text) or ("?", 0)
        row, column = _column(text, offset)
        place = f"{where}:{row if line is None else line}:{column}"
        raise CliError(f"{place}: invalid JSON: the key {json.dumps(key)} appears twice in "
                       "one object (which value is meant?)") from None
    except RecursionError:
        raise CliError(f"{at}: JSON nested too deeply") from None
    except ValueError as exc:  # int(): more digits than sys.get_int_max_str_digits()
        raise CliError(f"{at}: invalid JSON: {_number_error(exc)}") from None


def _number_error(exc: ValueError) -> str:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if limit and "integer string conversion" in str(exc):
        return f"an integer of more than {limit} digits"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def read_items(name: str, *, then: str | None = None) -> list[dict[str, Any]]:
    """Items from a JSON list, a single JSON object, or JSON Lines.

    Text that is no JSON but holds a summary's envelope is refused with the
    command that reads it into items: ``handoff-codec decode FILE``, piped into
    ``then`` (the command that wanted the items) when given.
    """
    text = read_text(name)
    if not text.strip():
        raise CliError(f"{name}: empty input, expected JSON or JSON Lines items")
    try:
        value = load_json(name, text)
    except json.JSONDecodeError:
        try:
            value = _json_lines(name, text)
        except CliError as exc:
            if not _summary_text(text):
                raise
            decode = shlex.join(["handoff-codec", "decode", *([] if name == "-" else [name])])
            run = f"{decode} | {then}" if then else decode
            raise CliError(f"{exc}; this is a summary's text, not items: read it into items "
                           f"first with `{run}`") from None
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise CliError(f"{name}: item {index} is {type(item).__name__}, expected an object")
    return items


def _summary_text(text: str) -> bool:
    """Whether ``text`` holds a summary's envelope (the default markers): only to say so."""
    return DEFAULT_START in text and DEFAULT_END in text


def _json_lines(name: str, text: str) -> list[Any]:
    items = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            items.append(load_json(name, line, line=number))
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


def report_error(message: str, code: int, *, as_json: bool) -> int:
    """Print an error (one line on stderr; with ``as_json`` also JSON on stdout); ``code``."""
    line = " ".join(message.splitlines()) or "error"
    print(f"handoff-codec: error: {line}", file=sys.stderr)
    if as_json:
        write_json({"error": {"exit": code, "message": line}}, indent=None)
    return code
