"""The lenient reader: current and legacy summaries to items, with a report.

The LALR parser of ``grammar/legacy.lark`` reads the envelope and the body's
lines. This module applies the one rule a grammar cannot state, the record
numbering (``_record_heads``), and reads each record's text with the
``LEGACY_*`` terminals of the same grammar.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, cast

from lark import Token, Transformer
from lark.exceptions import UnexpectedInput

from . import _parsers as grammar
from ._errors import DecodeError, DecodeReason, ReadFailure
from ._reader import KNOWN_ROLES, Engine, json_object, lark_error, read_if_current
from ._report import Decoded, Format, Recovery, RecoveryKind

__all__ = ["parse_lenient"]

Item = dict[str, Any]


@dataclass(slots=True)
class _Line:
    """One body line: its text without the "\n", where it is, and its record number."""

    text: str
    line: int
    pos: int
    number: int | None


class _Lines(Transformer[Token, tuple[Token, list[_Line]]]):
    """The preamble token and the body's lines."""

    def start(self, children: list[Any]) -> tuple[Token, list[_Line]]:
        return children[0], children[2]

    def preamble(self, children: list[Token]) -> Token:
        return children[0]

    def no_records(self, _children: list[Token]) -> list[_Line]:
        return []

    def lines(self, runs: list[Token]) -> list[_Line]:
        numbered = grammar.terminal("NUMBERED_LINE", "legacy").match
        lines: list[_Line] = []
        for run in runs:
            line, pos = run.line or 1, run.start_pos or 0
            for text in str(run).split("\n")[:-1]:
                match = numbered(text + "\n")
                lines.append(_Line(text, line, pos, _number(match["number"]) if match else None))
                line, pos = line + 1, pos + len(text) + 1
        return lines


_LINES = _Lines()


def _number(digits: str) -> int:
    """A record number; 0 (never in sequence) for one too long for int() to accept."""
    return int(digits) if len(digits) <= 18 else 0


def _record_heads(lines: Sequence[_Line], start: str, end: str) -> list[int]:
    """Indexes of the lines that start records.

    The records are the longest run of lines numbered 1, 2, 3, ... in order
    that starts at the first line. Of several such runs, the one with the most
    lines shaped like a record (``LEGACY_HEAD``) wins, then the one whose
    lines come latest: a legacy writer put spilled content after its record,
    never before. Lines inside a summary that spilled into content (between
    its own start and end marker lines) are content, never records.
    """
    shaped = grammar.terminal("LEGACY_HEAD", "legacy").match
    # For each record number: (score, position, parent position) of the best
    # run so far that ends on a line with that number.
    best: dict[int, tuple[int, int, int]] = {}
    parent: dict[int, int] = {}
    depth = 0
    for position, line in enumerate(lines):
        number = line.number
        if number is None:
            depth += (line.text == start) - (line.text == end and depth > 0)
            continue
        if depth or (number == 1) != (position == 0):
            continue
        before = best.get(number - 1, (0, -1, -1)) if number > 1 else (0, -1, -1)
        if number > 1 and before[1] < 0:
            continue
        score = before[0] + (shaped(line.text) is not None)
        if score >= best.get(number, (-1, -1, -1))[0]:
            best[number] = (score, position, before[1])
            parent[position] = before[1]
    if not best:
        return []
    heads = [best[max(best)][1]]
    while parent[heads[-1]] >= 0:
        heads.append(parent[heads[-1]])
    return heads[::-1]


class _Reader:
    """Reads records into items, noting every recovery."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.recoveries: list[Recovery] = []
        self.bare = self.spilled = self.typed = False
        # Signs of openai-agents >= 0.17.1, which wrote lists as JSON records
        # and (>= 0.20) empty turns as `N. role: `.
        self.json = self.empty_plain = False

    def note(self, line: int, kind: RecoveryKind, message: str, *, lost: bool = False) -> None:
        self.recoveries.append(Recovery(line=line, kind=kind, message=message, lost=lost))

    def record(self, head: _Line, rest: list[_Line]) -> Item | None:
        """The item of one record, or None when its text is not a record."""
        text = "\n".join([head.text, *(line.text for line in rest)]) if rest else head.text
        item = self.json_record(head, text)
        if item is not None:
            return item
        plain = grammar.terminal("LEGACY_PLAIN", "legacy").fullmatch(text)
        if plain is None or plain["role"] not in KNOWN_ROLES:
            # `user (team:alice): q` reads as role "user (team" by the first
            # colon; a known role with a name holding ":" or "(" is likelier.
            plain = grammar.terminal("LEGACY_NAMED", "legacy").fullmatch(text) or plain
        if plain is not None:
            return self.plain_record(head, plain, len(rest))
        bare = grammar.terminal("LEGACY_BARE", "legacy").fullmatch(text)
        if bare is not None:
            self.bare = True
            self.note(head.line, RecoveryKind.BARE_ROLE,
                      "an empty turn written as a bare role; read with content ''. "
                      "Whether it was None or '' is not in the text", lost=True)
            return _fields(bare, "")
        self.note(head.line, RecoveryKind.UNRECOGNISED,
                  f"a numbered line that is not a record; not read as a turn: {text[:60]!r}",
                  lost=True)
        return None

    def json_record(self, head: _Line, text: str) -> Item | None:
        match = grammar.terminal("LEGACY_JSON", "legacy").fullmatch(text)
        if match is None:
            return None
        try:
            item = json_object(match["json"], head.pos + match.start("json"), self.max_depth,
                               on_constant=lambda: self.note(
                                   head.line, RecoveryKind.NON_STANDARD_JSON,
                                   "NaN or Infinity, which JSON (RFC 8259) does not allow; "
                                   "read as a float, as json.loads does"))
            self.json = True
            return item
        except ReadFailure as failure:
            if failure.reason is DecodeReason.DEPTH:
                raise
        self.note(head.line, RecoveryKind.NOT_JSON,
                  "starts with '{' but is not JSON; read as a plain record, as the Agents SDK does")
        return None

    def plain_record(self, head: _Line, match: Any, continued: int) -> Item:
        item = _fields(match, match["content"])
        self.empty_plain = self.empty_plain or item["content"] == ""
        if continued:
            self.spilled = True
            self.note(head.line, RecoveryKind.CONTINUATION,
                      f"the record continues on the next {continued} line(s); joined with '\\n'")
        elif item["role"] not in KNOWN_ROLES and "name" not in item:
            typed = _json_value(item["content"])
            if isinstance(typed, dict):
                self.typed = True
                self.note(head.line, RecoveryKind.TYPED_RECORD,
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
    text: str, literals: tuple[tuple[str, str], ...], start: str, end: str, max_depth: int,
    engine: Engine = "fast",
) -> Decoded:
    """Read a summary of any generation, reporting every recovery.

    Text in the current format is read by the strict reader (``engine``); the
    lenient grammar runs only when that fails, or when a plain record may be a
    legacy form (see ``_reader.read``).
    """
    current = read_if_current(text, literals, max_depth, engine)
    if current is not None and not current[1]:
        return Decoded.model_construct(items=current[0], format=Format.CURRENT, recoveries=[])
    lark_parser = grammar.parser("legacy", transformer=_LINES, literals=literals)
    try:
        preamble, lines = cast(tuple[Token, list[_Line]], lark_parser.parse(text))
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    reader = _Reader(max_depth)
    if preamble.type == "LEGACY_PREAMBLE":
        reader.note(1, RecoveryKind.LEGACY_PREAMBLE, "the short legacy preamble")
    heads = _record_heads(lines, start, end)
    if lines and (not heads or heads[0] != 0):
        raise DecodeError("text before the first record", text, lines[0].pos, ("record 1",),
                          DecodeReason.NUMBERING)
    records: list[tuple[_Line, Item]] = []
    try:
        for head, after in pairwise([*heads, len(lines)]):
            item = reader.record(lines[head], lines[head + 1 : after])
            if item is not None:
                records.append((lines[head], item))
    except ReadFailure as failure:
        raise failure.at(text) from None
    if reader.spilled or reader.typed:
        form = Format.LEGACY_A
    elif reader.bare or preamble.type == "LEGACY_PREAMBLE":
        form = Format.LEGACY_BC
    else:
        form = Format.CURRENT
    if form is Format.LEGACY_A or not (reader.json or reader.empty_plain):
        # 0.6 to 0.17.0 wrote list content as a JSON array after the colon.
        # Without a sign of which writer this was, a string of the same text
        # reads the same: it stays a string, and the report says so.
        for head_line, item in records:
            _list_content(reader, head_line, item, read=form is Format.LEGACY_A)
    reader.recoveries.sort(key=lambda r: r.line)
    # Built without validation: the items are plain JSON data made here.
    return Decoded.model_construct(items=[item for _, item in records], format=form,
                                   recoveries=reader.recoveries)


def _list_content(reader: _Reader, head: _Line, item: Item, *, read: bool) -> None:
    """Read, or report as ambiguous, content that is a JSON array."""
    content = item.get("content")
    if "role" not in item or not isinstance(content, str) or not content.startswith("["):
        return
    value = _json_value(content)
    if not isinstance(value, list):
        return
    if read:
        item["content"] = value
        reader.note(head.line, RecoveryKind.LIST_CONTENT,
                    "list content written as a JSON array; read back as a list")
    else:
        reader.note(head.line, RecoveryKind.LIST_CONTENT,
                    "a JSON array as text: list content if openai-agents 0.6 to 0.17.0 "
                    "wrote this summary; read as the text", lost=True)
