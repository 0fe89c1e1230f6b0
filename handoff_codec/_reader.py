"""The strict reader: summary text in the current format to items.

The LALR parser comes from ``grammar/summary.lark``; record fields are the
named groups of the record terminals, matched by the same regular expressions
the lexer used.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, cast

from lark import Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import _limits as limits
from . import _parsers as grammar
from ._errors import DecodeError

__all__ = ["KNOWN_ROLES", "TOO_DEEP", "json_object", "lark_error", "parse_current", "parse_strict"]

TOO_DEEP = "JSON record nested too deeply"

# What each terminal means to a reader of an error message.
_DESCRIPTIONS = {
    "PREAMBLE": "the preamble line",
    "START_MARKER": "the start marker line",
    "END_MARKER": "the end marker line",
    "EMPTY_TRANSCRIPT": "'(no previous turns recorded)'",
    "RECORDS": "a numbered record 'N. role: content' or 'N. {json}'",
    "_NL": "a line break",
    "LEGACY_PREAMBLE": "the short legacy preamble",
    "EMPTY_LINE": "'(no previous turns recorded)'",
    "NUMBERED_LINE": "a numbered record",
    "TEXT_LINE": "a line",
    "_SIGNATURE": "a signature line",
    "$END": "the end of the text",
}


# The C scanner behind json.loads (not in the type stubs): (value, end) or StopIteration.
_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _loads(text: str) -> Any:
    """``json.loads``, with the C scanner called directly on the common case."""
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        end = -1
    if end != len(text):  # an error, or trailing whitespace: let json say which
        value = json.loads(text)
    return value


def json_object(text: str, token: Token, offset: int, max_depth: int) -> dict[str, Any]:
    """Decode the JSON object that starts ``offset`` characters into ``token``."""
    deep = limits.depth_exceeded_at(text, max_depth)
    if deep is not None:
        raise _json_error(RecursionError(), token, offset + deep, max_depth)
    try:
        value = _loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: an int over the digit limit
        raise _json_error(exc, token, offset, max_depth) from None
    if type(value) is not dict:
        raise _json_error(None, token, offset, max_depth)
    return value


def _json_error(
    exc: Exception | None, token: Token, offset: int, max_depth: int
) -> DecodeError:
    """The DecodeError for a JSON object at ``offset`` into ``token``."""
    shift = exc.pos if isinstance(exc, json.JSONDecodeError) else 0
    if isinstance(exc, json.JSONDecodeError):
        msg = f"invalid JSON record: {exc.msg}"
    elif isinstance(exc, ValueError):
        msg = f"invalid JSON record: {exc}"
    elif isinstance(exc, RecursionError):
        msg = f"{TOO_DEEP}: more than max_depth={max_depth} levels"
    else:
        msg = "a JSON record must be an object"
    return _position(token, offset + shift, msg, ("a JSON object",))


KNOWN_ROLES = frozenset({"user", "assistant", "system", "developer"})


class _Items(list[dict[str, Any]]):
    """The items of a summary, and whether a plain record may be a legacy form.

    The lenient reader reads ``other: {json}`` as a typed item, as the Agents
    SDK does, ``user (a:b): x`` as a named user turn, and reports content that
    may be a legacy JSON list. A summary whose plain records all have a known
    role and no content starting with "[" reads the same in both modes.
    """

    maybe_legacy = False


class _Strict(Transformer[Token, list[dict[str, Any]]]):
    """Builds items while the parser reduces; no tree is built."""

    def __init__(self, max_depth: int) -> None:
        super().__init__()
        self.max_depth = max_depth

    def start(self, children: list[Any]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = children[2]
        return records

    def no_records(self, _children: list[Token]) -> _Items:
        return _Items()

    def records(self, runs: list[Token]) -> _Items:
        plain = grammar.terminal("PLAIN_RECORD").match
        json_record = grammar.terminal("JSON_RECORD").match
        items = _Items()
        append = items.append
        for run in runs:
            text, pos, end = str(run), 0, len(run)
            while pos < end:
                match = plain(text, pos)
                if match is not None:
                    index, role, name, content = match.group("index", "role", "name", "content")
                    if name is None:
                        append({"role": role, "content": content})
                    else:
                        append({"role": role, "name": name, "content": content})
                    if role not in KNOWN_ROLES or content[:1] == "[":
                        items.maybe_legacy = True
                else:
                    match = json_record(text, pos)
                    assert match is not None  # the lexer matched one of the two here
                    index = match["json_index"]
                    append(json_object(match["json"], run, match.start("json"), self.max_depth))
                if index != str(len(items)):
                    raise _position(run, pos, f"record number {index!r} out of sequence",
                                    (f"record {len(items)}",))
                pos = match.end()
        return items


def _position(run: Token, offset: int, msg: str, expected: tuple[str, ...]) -> DecodeError:
    """A DecodeError ``offset`` characters into the token ``run``."""
    text = str(run)
    line = (run.line or 1) + text.count("\n", 0, offset)
    first_line = "\n" not in text[:offset]
    column = (run.column or 1) + offset if first_line else offset - text.rfind("\n", 0, offset)
    return DecodeError(msg, line=line, column=column, pos=(run.start_pos or 0) + offset,
                       expected=expected)


@functools.cache
def _strict(max_depth: int) -> _Strict:
    """One transformer, and so one cached parser, per depth limit."""
    return _Strict(max_depth)


def lark_error(text: str, exc: UnexpectedInput) -> DecodeError:
    """Translate a Lark error into a DecodeError that names what was expected."""
    if isinstance(exc, UnexpectedToken):
        names = exc.accepts or exc.expected
        found = f"{exc.token!s}"[:40]
        what = f"unexpected {found!r}" if exc.token.type != "$END" else "unexpected end of text"
    elif isinstance(exc, UnexpectedCharacters):
        names = exc.allowed or set()
        start = exc.pos_in_stream or 0
        what = f"unexpected {text[start:start + 40]!r}"
    elif isinstance(exc, UnexpectedEOF):
        names = set(exc.expected)
        what = "unexpected end of text"
    else:  # pragma: no cover - Lark raises only the three above
        names, what = set(), "malformed summary"
    expected = tuple(sorted({_DESCRIPTIONS.get(n, n) for n in names}))
    pos = getattr(exc, "pos_in_stream", None)
    at_end = isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    )
    if pos is None or pos < 0 or at_end:
        pos = len(text)
    message = f"{what}; expected {' or '.join(expected)}" if expected else what
    return DecodeError.at(text, pos, message, expected)


def parse_strict(
    text: str, literals: tuple[tuple[str, str], ...], max_depth: int
) -> list[dict[str, Any]]:
    """Parse a current-format summary, raising DecodeError on any deviation."""
    return list(parse_current(text, literals, max_depth))


def parse_current(text: str, literals: tuple[tuple[str, str], ...], max_depth: int) -> _Items:
    """Like :func:`parse_strict`, keeping the note of plain records that may be legacy."""
    lark_parser = grammar.parser("summary", transformer=_strict(max_depth), literals=literals)
    try:
        result = cast(_Items, lark_parser.parse(text))
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    return result
