"""The strict reader: summary text in the current format to items.

The LALR parser comes from ``grammar/summary.lark``; record fields are the
named groups of the record terminals, matched by the same regular expressions
the lexer used.
"""

from __future__ import annotations

import json
from typing import Any

from lark import Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import grammar, limits
from .errors import DecodeError

__all__ = ["TOO_DEEP", "json_object", "lark_error", "parse_strict"]

TOO_DEEP = "JSON record nested too deeply"

# What each terminal means to a reader of an error message.
_DESCRIPTIONS = {
    "PREAMBLE": "the preamble line",
    "START_MARKER": "the start marker line",
    "END_MARKER": "the end marker line",
    "EMPTY_TRANSCRIPT": "'(no previous turns recorded)'",
    "JSON_RECORD": "a numbered JSON record",
    "PLAIN_RECORD": "a numbered record 'N. role: content'",
    "_NL": "a line break",
    "LEGACY_PREAMBLE": "the short legacy preamble",
    "EMPTY_LINE": "'(no previous turns recorded)'",
    "NUMBERED_LINE": "a numbered record",
    "TEXT_LINE": "a line",
    "$END": "the end of the text",
}


def json_object(text: str, token: Token, offset: int) -> dict[str, Any]:
    """Decode the JSON object that starts ``offset`` characters into ``token``."""
    start = (token.start_pos or 0) + offset
    line, column = token.line or 1, (token.column or 1) + offset
    max_depth = limits.current_max_depth()
    deep = limits.depth_exceeded_at(text, max_depth)
    if deep is not None:
        raise DecodeError(f"{TOO_DEEP}: more than max_depth={max_depth} levels", line=line,
                          column=column + deep, pos=start + deep, expected=("a JSON object",))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError(f"invalid JSON record: {exc.msg}", line=line, column=column + exc.pos,
                          pos=start + exc.pos, expected=("a JSON object",)) from None
    except ValueError as exc:  # e.g. an integer over sys.get_int_max_str_digits() digits
        raise DecodeError(f"invalid JSON record: {exc}", line=line, column=column,
                          pos=start, expected=("a JSON object",)) from None
    except RecursionError:
        raise DecodeError(TOO_DEEP, line=line, column=column,
                          pos=start, expected=("a JSON object",)) from None
    if not isinstance(value, dict):
        raise DecodeError("a JSON record must be an object", line=line, column=column,
                          pos=start, expected=("a JSON object",))
    return value


def _plain_item(match: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"role": match["role"]}
    if match["name"] is not None:
        item["name"] = match["name"]
    item["content"] = match["content"]
    return item


class _Strict(Transformer[Token, list[dict[str, Any]]]):
    """Builds items while the parser reduces; no tree is built."""

    def start(self, children: list[Any]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = children[2]
        return records

    def no_records(self, _children: list[Token]) -> list[dict[str, Any]]:
        return []

    def records(self, tokens: list[Token]) -> list[dict[str, Any]]:
        plain = grammar.terminal("PLAIN_RECORD")
        json_record = grammar.terminal("JSON_RECORD")
        items = []
        for number, token in enumerate(tokens, 1):
            if token.type == "PLAIN_RECORD":
                match = plain.match(token)
                index = match["index"] if match else ""
                if match is None:  # pragma: no cover - the lexer matched this very pattern
                    raise DecodeError("malformed record", line=token.line or 1,
                                      column=token.column or 1, pos=token.start_pos or 0)
                item = _plain_item(match)
            else:
                match = json_record.match(token)
                assert match is not None
                index = match["json_index"]
                item = json_object(match["json"], token, match.start("json"))
            if index != str(number):
                raise DecodeError(f"record number {index!r} out of sequence",
                                  line=token.line or 1, column=token.column or 1,
                                  pos=token.start_pos or 0, expected=(f"record {number}",))
            items.append(item)
        return items


_STRICT = _Strict()


def lark_error(text: str, exc: UnexpectedInput) -> DecodeError:
    """Translate a Lark error into a DecodeError that names what was expected."""
    if isinstance(exc, UnexpectedToken):
        names = exc.accepts or exc.expected
        found = f"{exc.token!s}"[:40]
        what = f"unexpected {found!r}" if exc.token.type != "$END" else "unexpected end of text"
    elif isinstance(exc, UnexpectedCharacters):
        names = exc.allowed or set()
        what = f"unexpected {text[exc.pos_in_stream:exc.pos_in_stream + 40]!r}"
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


def parse_strict(text: str, literals: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """Parse a current-format summary, raising DecodeError on any deviation."""
    lark_parser = grammar.parser("summary", transformer=_STRICT, literals=literals)
    try:
        result: list[dict[str, Any]] = lark_parser.parse(text)
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    return result
