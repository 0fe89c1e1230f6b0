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
from ._errors import DecodeError, DecodeReason, ReadFailure

__all__ = ["KNOWN_ROLES", "json_object", "lark_error", "parse_current", "parse_strict"]

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


def json_object(text: str, pos: int, max_depth: int) -> dict[str, Any]:
    """Decode the JSON object ``text``, found at offset ``pos`` of the summary.

    Raises ReadFailure with an absolute position: reason ``depth`` past
    ``max_depth`` levels, ``json`` for anything that is not a JSON object.
    """
    deep = limits.depth_exceeded_at(text, max_depth)
    if deep is not None:
        raise ReadFailure(f"JSON record nested too deeply: more than max_depth={max_depth} "
                          "levels", pos + deep, _JSON_EXPECTED, DecodeReason.DEPTH)
    try:
        value = _loads(text)
    except json.JSONDecodeError as exc:
        raise ReadFailure(f"invalid JSON record: {exc.msg}", pos + exc.pos, _JSON_EXPECTED,
                          DecodeReason.JSON) from None
    except RecursionError:  # a max_depth above what the json module can nest
        raise ReadFailure(f"JSON record nested too deeply: more than max_depth={max_depth} "
                          "levels", pos, _JSON_EXPECTED, DecodeReason.DEPTH) from None
    except ValueError as exc:  # an int over the digit limit
        raise ReadFailure(f"invalid JSON record: {exc}", pos, _JSON_EXPECTED,
                          DecodeReason.JSON) from None
    if type(value) is not dict:
        raise ReadFailure("a JSON record must be an object", pos, _JSON_EXPECTED,
                          DecodeReason.JSON)
    return value


_JSON_EXPECTED = ("a JSON object",)


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
            text, pos, end, start = str(run), 0, len(run), run.start_pos or 0
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
                    append(json_object(match["json"], start + match.start("json"),
                                       self.max_depth))
                if index != str(len(items)):
                    raise ReadFailure(f"record number {index!r} out of sequence", start + pos,
                                      (f"record {len(items)}",), DecodeReason.NUMBERING)
                pos = match.end()
        return items


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
    return DecodeError(message, text, pos, expected, DecodeReason.SYNTAX)


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
    except ReadFailure as failure:
        raise failure.at(text) from None
    return result
