"""The lenient reader: current and legacy summaries to items, with a report.

The LALR parser of ``grammar/legacy.lark`` reads the envelope and the body's
lines. This module applies the one rule a grammar cannot state, the record
numbering (``_record_heads``), and reads each record's text with the
``LEGACY_*`` terminals of the same grammar.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from lark import Token, Transformer
from lark.exceptions import UnexpectedInput

from . import grammar
from .errors import DecodeError
from .reader import TOO_DEEP, json_object, lark_error
from .report import Decoded, Format, Recovery, RecoveryKind

__all__ = ["parse_lenient"]

KNOWN_ROLES = frozenset({"user", "assistant", "system", "developer"})

Item = dict[str, Any]


class _Lines(Transformer[Token, tuple[Token, list[Token]]]):
    """The preamble token and the body's line tokens."""

    def start(self, children: list[Any]) -> tuple[Token, list[Token]]:
        return children[0], children[2]

    def preamble(self, children: list[Token]) -> Token:
        return children[0]

    def no_records(self, _children: list[Token]) -> list[Token]:
        return []

    def lines(self, tokens: list[Token]) -> list[Token]:
        return tokens


_LINES = _Lines()


def _record_heads(lines: Sequence[Token], start: str, end: str) -> list[int]:
    """Indexes of the lines that start records.

    The records are the longest run of lines numbered 1, 2, 3, ... in order;
    of several candidates for one number the latest is taken, because a
    legacy writer put spilled content after its record, never before. Lines
    inside a summary that spilled into content (between its own start and
    end marker lines) are content, never records.
    """
    numbered: list[tuple[int, int]] = []
    depth = 0
    for position, token in enumerate(lines):
        if token.type == "TEXT_LINE":
            line = token[:-1]
            depth += (line == start) - (line == end and depth > 0)
        elif depth == 0:
            numbered.append((position, int(token[: token.index(".")])))
    expected = 1
    for _, number in numbered:
        expected += number == expected
    heads: list[int] = []
    wanted = expected - 1
    for position, number in reversed(numbered):
        if wanted and number == wanted:
            heads.append(position)
            wanted -= 1
    return heads[::-1]


class _Reader:
    """Reads records into items, noting every recovery."""

    def __init__(self) -> None:
        self.recoveries: list[Recovery] = []
        self.bare = self.spilled = self.typed = False

    def note(self, token: Token, kind: RecoveryKind, message: str, *, lost: bool = False) -> None:
        self.recoveries.append(Recovery(line=token.line or 1, kind=kind, message=message, lost=lost))

    def record(self, head: Token, rest: list[Token]) -> Item | None:
        """The item of one record, or None when its text is not a record."""
        text = "\n".join([head[:-1], *(token[:-1] for token in rest)])
        if text.startswith("{", text.index(". ") + 2 if ". " in text else 0):
            item = self.json_record(head, text)
            if item is not None:
                return item
        plain = grammar.terminal("LEGACY_PLAIN", "legacy").fullmatch(text)
        if plain is not None:
            return self.plain_record(head, plain, len(rest))
        bare = grammar.terminal("LEGACY_BARE", "legacy").fullmatch(text)
        if bare is not None:
            self.bare = True
            self.note(head, RecoveryKind.BARE_ROLE,
                      "an empty turn written as a bare role; read with content ''. "
                      "Whether it was None or '' is not in the text", lost=True)
            return _fields(bare, "")
        self.note(head, RecoveryKind.UNRECOGNISED,
                  f"a numbered line that is not a record; not read as a turn: {text[:60]!r}",
                  lost=True)
        return None

    def json_record(self, head: Token, text: str) -> Item | None:
        match = grammar.terminal("LEGACY_JSON", "legacy").fullmatch(text)
        if match is None:
            return None
        try:
            return json_object(match["json"], head, match.start("json"))
        except DecodeError as exc:
            if exc.msg == TOO_DEEP:
                raise
        self.note(head, RecoveryKind.NOT_JSON,
                  "starts with '{' but is not JSON; read as a plain record, as the Agents SDK does")
        return None

    def plain_record(self, head: Token, match: Any, continued: int) -> Item:
        item = _fields(match, match["content"])
        if continued:
            self.spilled = True
            self.note(head, RecoveryKind.CONTINUATION,
                      f"the record continues on the next {continued} line(s); joined with '\\n'")
        elif item["role"] not in KNOWN_ROLES and "name" not in item:
            typed = _json_value(item["content"])
            if isinstance(typed, dict):
                self.typed = True
                self.note(head, RecoveryKind.TYPED_RECORD,
                          f"'{item['role']}: {{...}}' read as an item of type {item['role']!r}")
                typed["type"] = item["role"]
                return typed
        return item


def _fields(match: Any, content: str) -> Item:
    item: Item = {"role": match["role"]}
    if match["name"] is not None:
        item["name"] = match["name"]
    item["content"] = content
    return item


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def parse_lenient(
    text: str, literals: tuple[tuple[str, str], ...], start: str, end: str
) -> Decoded:
    """Read a summary of any generation, reporting every recovery."""
    lark_parser = grammar.parser("legacy", transformer=_LINES, literals=literals)
    try:
        preamble, lines = lark_parser.parse(text)
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    reader = _Reader()
    if preamble.type == "LEGACY_PREAMBLE":
        reader.note(preamble, RecoveryKind.LEGACY_PREAMBLE, "the short legacy preamble")
    heads = _record_heads(lines, start, end)
    if lines and (not heads or heads[0] != 0):
        raise DecodeError.at(text, lines[0].start_pos or 0, "text before the first record",
                             ("record 1",))
    records: list[tuple[Token, Item]] = []
    for head, after in pairwise([*heads, len(lines)]):
        item = reader.record(lines[head], lines[head + 1 : after])
        if item is not None:
            records.append((lines[head], item))
    if reader.spilled or reader.typed:
        form = Format.LEGACY_A
        for head_token, item in records:
            _list_content(reader, head_token, item)
    elif reader.bare or preamble.type == "LEGACY_PREAMBLE":
        form = Format.LEGACY_BC
    else:
        form = Format.CURRENT
    reader.recoveries.sort(key=lambda r: r.line)
    # Built without validation: the items are plain JSON data made here.
    return Decoded.model_construct(items=[item for _, item in records], format=form,
                                   recoveries=reader.recoveries)


def _list_content(reader: _Reader, head: Token, item: Item) -> None:
    """0.6 to 0.17.0 wrote list content as a JSON array after the colon."""
    content = item.get("content")
    if "role" in item and isinstance(content, str) and content.startswith("["):
        value = _json_value(content)
        if isinstance(value, list):
            item["content"] = value
            reader.note(head, RecoveryKind.LIST_CONTENT,
                        "list content written as a JSON array; read back as a list")
