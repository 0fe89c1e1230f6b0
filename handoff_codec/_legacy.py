"""The lenient reader: current and legacy summaries to items, with a report.

The LALR parser of ``grammar/legacy.lark`` reads the envelope and takes the
body as one token. This module applies the one rule a grammar cannot state,
the record numbering (``_record_heads``), and reads each record's text with
the ``LEGACY_*`` terminals of the same grammar.

Memory stays a small multiple of the input: the body is never split into
line objects. One scan finds the numbered lines and keeps only their offsets
and numbers, in arrays of ints; a record's text is a slice of the body.
"""

from __future__ import annotations

import functools
import json
import re
from array import array
from collections.abc import Iterator
from typing import Any, NamedTuple, cast

from lark import Token, Transformer
from lark.exceptions import UnexpectedInput

from . import _parsers as grammar
from ._errors import DecodeError, DecodeReason, ReadFailure
from ._reader import KNOWN_ROLES, Engine, json_object, lark_error, read_if_current
from ._report import Decoded, Format, Recovery, RecoveryKind

__all__ = ["parse_lenient"]

Item = dict[str, Any]
Literals = tuple[tuple[str, str], ...]


class _Envelope(Transformer[Token, tuple[Token, str, int]]):
    """The preamble token, the body's text and its offset in the summary."""

    def start(self, children: list[Any]) -> tuple[Token, str, int]:
        return children[0], *children[2]

    def preamble(self, children: list[Token]) -> Token:
        return children[0]

    def no_records(self, _children: list[Token]) -> tuple[str, int]:
        return "", 0

    def records(self, children: list[Token]) -> tuple[str, int]:
        return str(children[0]), children[0].start_pos or 0


_ENVELOPE = _Envelope()


@functools.cache
def _shapes(literals: Literals) -> tuple[tuple[tuple[str, str], ...], str, str] | None:
    """For :func:`_split`: each preamble terminal with the text from it to the
    body, the empty transcript and the end marker.

    None when one preamble is a prefix of the other: the lexer's choice
    between them is then left to the parser.
    """
    values = dict(literals)
    preambles = (("PREAMBLE", values["PREAMBLE"]),
                 ("LEGACY_PREAMBLE", grammar.literal("LEGACY_PREAMBLE", "legacy")))
    (_, first), (_, second) = preambles
    if first.startswith(second) or second.startswith(first):
        return None
    heads = tuple((name, f"{preamble}\n{values['START_MARKER']}\n") for name, preamble in preambles)
    return heads, grammar.literal("EMPTY_TRANSCRIPT"), values["END_MARKER"]


def _split(text: str, literals: Literals) -> tuple[str, str, int] | None:
    """The envelope of ``grammar/legacy.lark`` read as the LALR parser reads it, in one pass.

    The preamble terminal, the body (the ``RECORDS`` token: up to the last
    line break) and its offset; None for any text this shortcut does not
    cover (the empty transcript, or text that breaks the grammar), which the
    parser then reads. A test checks that both agree.
    """
    shapes = _shapes(literals)
    if shapes is None:
        return None
    heads, empty, end = shapes
    found = next((shape for shape in heads if text.startswith(shape[1])), None)
    if found is None:
        return None
    name, head = found
    pos = len(head)
    signature = grammar.terminal("_SIGNATURE").match(text, pos)
    if signature is not None:
        pos = signature.end()
    if text.startswith(empty, pos):
        return None
    last = text.rfind("\n")  # the end marker holds no line break
    if last < pos or text[last + 1:] != end:
        return None
    return name, text[pos:last + 1], pos


def _envelope(text: str, literals: Literals) -> tuple[str, str, int]:
    """The preamble terminal, the body and its offset; DecodeError for a broken envelope."""
    split = _split(text, literals)
    if split is not None:
        return split
    lark_parser = grammar.parser("legacy", transformer=_ENVELOPE, literals=literals)
    try:
        preamble, body, offset = cast(tuple[Token, str, int], lark_parser.parse(text))
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    return preamble.type, body, offset


def _legacy(name: str) -> re.Pattern[str]:
    return grammar.terminal(name, "legacy")


class _Numbered:
    """The body's numbered lines: their offsets and numbers, as arrays of ints."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.starts = array("q")
        self.numbers = array("q")
        start, number = self.starts.append, self.numbers.append
        # RECORD_NUMBER matches only where a line starts: try it at each line
        # start (found by str.find) rather than have the regex engine test
        # every offset of the body for one.
        numbered, find = _legacy("RECORD_NUMBER").match, body.find
        pos = 0
        while pos >= 0:
            match = numbered(body, pos)
            if match is not None:
                start(pos)
                digits = match[1]
                # 0 (never in sequence) for a number too long for int() to accept
                number(int(digits) if len(digits) <= 18 else 0)
            newline = find("\n", pos)
            pos = newline + 1 if newline >= 0 else -1

    def shaped(self) -> bytearray:
        """1 for each numbered line shaped like a record (``LEGACY_HEAD``), else 0."""
        head, body = _legacy("LEGACY_HEAD").match, self.body
        return bytearray(head(body, start) is not None for start in self.starts)

    def old_writer_sign(self, shaped: bytearray) -> bool:
        """Whether the body shows a sign of the 0.6 to 0.17.0 writer (see legacy.lark)."""
        body = self.body
        if body.count("\n") != len(self.starts):  # a line that is not numbered
            return True
        highest = 0
        for number, is_shaped in zip(self.numbers, shaped, strict=True):
            if is_shaped:
                if number < highest:  # a record numbered lower than one above it
                    return True
                highest = number
        typed = _legacy("LEGACY_TYPED_HEAD").finditer(body)
        return any(match["type"] not in KNOWN_ROLES for match in typed)

    def inside_spilled_summaries(self, start: str, end: str) -> bytearray:
        """1 for each numbered line between a spilled summary's own marker lines."""
        inside = bytearray(len(self.starts))
        body = self.body
        if start not in body:
            return inside
        markers = re.compile(f"^(?:{re.escape(start)}|{re.escape(end)})$", re.MULTILINE)
        numbered = _legacy("RECORD_NUMBER").match
        depth, index, count = 0, 0, len(self.starts)
        for marker in markers.finditer(body):
            if numbered(body, marker.start()):
                continue
            while index < count and self.starts[index] < marker.start():
                inside[index] = depth > 0
                index += 1
            depth += (marker[0] == start) - (marker[0] == end and depth > 0)
        while index < count:
            inside[index] = depth > 0
            index += 1
        return inside


class Run(NamedTuple):
    """The best run of records 1, 2, 3, ... that ends on one numbered line."""

    score: int  # how many of its lines are shaped like records
    position: int  # the numbered line it ends on
    parent: int  # the numbered line of the record before, -1 for none


def _record_heads(lines: _Numbered, start: str, end: str) -> list[int]:
    """Indexes (into ``lines``) of the numbered lines that start records.

    The rule is stated in the header of ``grammar/legacy.lark``: the run of
    lines numbered 1, 2, 3, ... from the first line, and, unless the summary
    shows a sign of the 0.6 to 0.17.0 writer, every other line shaped like
    a record.

    When the numbered lines are numbered 1, 2, 3, ... from the first line
    and none is inside a spilled summary, that run holds every one of them:
    each starts a record, and the rest of the rule has nothing to add.
    """
    inside = lines.inside_spilled_summaries(start, end)
    count = len(lines.starts)
    if (count and lines.starts[0] == 0 and not any(inside)
            and lines.numbers == array("q", range(1, count + 1))):
        return list(range(count))
    return _heads_by_rule(lines, inside)


def _heads_by_rule(lines: _Numbered, inside: bytearray) -> list[int]:
    """:func:`_record_heads` for any numbering: the best run, then the shaped lines."""
    shaped = lines.shaped()
    best: dict[int, Run] = {}
    parents = array("q", [-1]) * len(lines.starts)
    for position, number in enumerate(lines.numbers):
        if inside[position] or (number == 1) != (lines.starts[position] == 0):
            continue
        before = best.get(number - 1) if number > 1 else Run(0, -1, -1)
        if before is None:
            continue
        run = Run(before.score + shaped[position], position, before.position)
        if number not in best or run.score >= best[number].score:
            best[number] = run
            parents[position] = run.parent
    heads: list[int] = []
    if best:
        heads.append(best[max(best)].position)
        while parents[heads[-1]] >= 0:
            heads.append(parents[heads[-1]])
        heads.reverse()
    if lines.old_writer_sign(shaped):
        return heads
    return sorted({*heads, *(i for i, is_shaped in enumerate(shaped) if is_shaped)})


class _Record(NamedTuple):
    """One record's text and where it is."""

    text: str
    line: int  # 1-based line of the summary
    pos: int  # offset in the summary
    continued: int  # how many lines continue the head line


def _records(lines: _Numbered, heads: list[int], line: int, offset: int) -> Iterator[_Record]:
    """The text of each record: from its head line to the next record's head."""
    body, starts = lines.body, lines.starts
    seen = 0
    ends = [starts[h] for h in heads[1:]] + [len(body)]
    for head, stop in zip(heads, ends, strict=True):
        begin = starts[head]
        line += body.count("\n", seen, begin)
        seen = begin
        text = body[begin:stop - 1]
        yield _Record(text, line, offset + begin, text.count("\n"))


# The writer generation each kind of recovery shows; the oldest one shown wins.
_SHOWN_BY = {
    RecoveryKind.CONTINUATION: Format.LEGACY_0_6,
    RecoveryKind.TYPED_RECORD: Format.LEGACY_0_6,
    RecoveryKind.LIST_CONTENT: Format.LEGACY_0_6,
    RecoveryKind.BARE_ROLE: Format.LEGACY_0_17_1,
    RecoveryKind.LEGACY_PREAMBLE: Format.LEGACY_0_17_1,
}
_OLDEST_FIRST = (Format.LEGACY_0_6, Format.LEGACY_0_17_1)


def _format(kinds: set[RecoveryKind]) -> Format:
    shown = {_SHOWN_BY[kind] for kind in kinds if kind in _SHOWN_BY}
    return next((form for form in _OLDEST_FIRST if form in shown), Format.CURRENT)


class _Reader:
    """Reads records into items, noting every recovery."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.recoveries: list[Recovery] = []
        self.json_match = _legacy("LEGACY_JSON").fullmatch
        self.plain_match = _legacy("LEGACY_PLAIN").fullmatch
        self.named_match = _legacy("LEGACY_NAMED").fullmatch
        self.bare_match = _legacy("LEGACY_BARE").fullmatch
        # Signs of openai-agents >= 0.17.1, which wrote lists as JSON records
        # and (>= 0.20) empty turns as `N. role: `.
        self.json = self.empty_plain = False

    def note(self, line: int, kind: RecoveryKind, message: str, *, lost: bool = False) -> None:
        self.recoveries.append(Recovery(line=line, kind=kind, message=message, lost=lost))

    def kinds(self) -> set[RecoveryKind]:
        return {recovery.kind for recovery in self.recoveries}

    def record(self, record: _Record) -> Item | None:
        """The item of one record, or None when its text is not a record."""
        text = record.text
        item = self.json_record(record)
        if item is not None:
            return item
        # Both plain patterns need a ":"; without one, skip their scan.
        plain = self.plain_match(text) if ":" in text else None
        if plain is None or (plain["role"] not in KNOWN_ROLES
                             and (plain["name"] is None or plain["role"][-1:] != ")")):
            # `user (team:alice): q` reads as role "user (team" by the first
            # colon, and `assistant (agent (v2)): a` as role "assistant (agent"
            # and name "v2)": a known role with a name holding ":" or "(" is
            # likelier. A role that closes its own parenthesis and has a name,
            # as in the Agents SDK's `assistant (bot) (0): ` for role
            # "assistant (bot)" and name "0", keeps that reading.
            plain = (self.named_match(text) if ":" in text else None) or plain
        if plain is not None:
            return self.plain_record(record, plain)
        bare = self.bare_match(text)
        if bare is not None:
            self.note(record.line, RecoveryKind.BARE_ROLE,
                      "an empty turn written as a bare role; read with content ''. "
                      "Whether it was None or '' is not in the text", lost=True)
            return _fields(bare, "")
        self.note(record.line, RecoveryKind.UNRECOGNISED,
                  f"a numbered line that is not a record; not read as a turn: {text[:60]!r}",
                  lost=True)
        return None

    def json_record(self, record: _Record) -> Item | None:
        match = self.json_match(record.text)
        if match is None:
            return None
        try:
            item = json_object(match["json"], record.pos + match.start("json"), self.max_depth,
                               on_constant=lambda: self.note(
                                   record.line, RecoveryKind.NON_STANDARD_JSON,
                                   "NaN or Infinity, which JSON (RFC 8259) does not allow; "
                                   "read as a float, as json.loads does"))
            self.json = True
            return item
        except ReadFailure as failure:
            if failure.reason is DecodeReason.DEPTH:
                raise
        self.note(record.line, RecoveryKind.NOT_JSON,
                  "starts with '{' but is not JSON; read as a plain record, as the Agents SDK does")
        return None

    def plain_record(self, record: _Record, match: Any) -> Item:
        item = _fields(match, match["content"])
        self.empty_plain = self.empty_plain or item["content"] == ""
        if record.continued:
            self.note(record.line, RecoveryKind.CONTINUATION,
                      f"the record continues on the next {record.continued} line(s); "
                      "joined with '\\n'")
        elif item["role"] not in KNOWN_ROLES and "name" not in item:
            typed = _json_value(item["content"])
            if isinstance(typed, dict):
                self.note(record.line, RecoveryKind.TYPED_RECORD,
                          f"'{item['role']}: {{...}}' read as an item of type {item['role']!r}")
                typed["type"] = item["role"]
                return typed
        return item

    def renumbered(self, record: _Record, expected: int) -> None:
        number = record.text[:record.text.index(".")]
        shown = number if len(number) <= 20 else number[:20] + "..."
        self.note(record.line, RecoveryKind.RENUMBERED,
                  f"a record numbered {shown} where {expected} was expected; read as a record "
                  "of its own")

    def list_content(self, line: int, item: Item, *, old_writer: bool) -> None:
        """Read, or report as ambiguous, string content that starts with "["."""
        value = _json_value(item["content"])
        if not isinstance(value, list):
            return
        if old_writer:
            item["content"] = value
            self.note(line, RecoveryKind.LIST_CONTENT,
                      "list content written as a JSON array; read back as a list")
        elif value and all(isinstance(part, dict) and part.get("type") in _content_part_types()
                           for part in value):
            item["content"] = value
            self.note(line, RecoveryKind.LIST_CONTENT,
                      "a JSON array of Responses input content parts: inferred to be list content "
                      "written by openai-agents 0.6 to 0.17.0; read back as a list")
        else:
            self.note(line, RecoveryKind.ARRAY_AS_TEXT,
                      "a JSON array as text: list content if openai-agents 0.6 to 0.17.0 "
                      "wrote this summary; read as the text", lost=True)


@functools.cache
def _content_part_types() -> frozenset[str]:
    """The ``type`` of every content part a message without ``type`` can hold.

    From the openai package: the parts of ``EasyInputMessage.content``
    (``ResponseInputContent``) and ``ResponseInputAudio``. Output parts
    (``output_text``, ``refusal``) are not among them: they belong to an
    output message, which has an ``id`` that the old writer did not keep, and
    as the content of a plain turn neither the Responses API's input types nor
    the Agents SDK's Chat Completions converter accept them.
    """
    from typing import Literal, get_args, get_origin

    from openai.types.responses import EasyInputMessage, ResponseInputAudio
    from pydantic import BaseModel

    types: set[str] = set()
    pending: list[Any] = [EasyInputMessage.model_fields["content"].annotation, ResponseInputAudio]
    while pending:
        kind = pending.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            field = kind.model_fields["type"].annotation
            if get_origin(field) is Literal:
                types.update(get_args(field))
        elif get_origin(kind) is not None:  # Union, Annotated, List
            pending.extend(get_args(kind))
    return frozenset(types)


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
    preamble, body, offset = _envelope(text, literals)
    reader = _Reader(max_depth)
    if preamble == "LEGACY_PREAMBLE":
        reader.note(1, RecoveryKind.LEGACY_PREAMBLE, "the short legacy preamble")
    lines = _Numbered(body)
    heads = _record_heads(lines, start, end)
    if body and (not heads or lines.starts[heads[0]] != 0):
        raise DecodeError("text before the first record", text, offset, ("record 1",),
                          DecodeReason.NUMBERING)
    first_line = text.count("\n", 0, offset) + 1
    records: list[tuple[int, Item]] = []
    above = 0  # the number of the record above
    try:
        for head, record in zip(heads, _records(lines, heads, first_line, offset), strict=True):
            if lines.numbers[head] != above + 1:
                reader.renumbered(record, above + 1)
            above = lines.numbers[head]
            item = reader.record(record)
            if item is not None:
                records.append((record.line, item))
    except ReadFailure as failure:
        raise failure.at(text) from None
    old_writer = _format(reader.kinds()) is Format.LEGACY_0_6
    if old_writer or not (reader.json or reader.empty_plain):
        # 0.6 to 0.17.0 wrote list content as a JSON array after the colon.
        # Without a sign of which writer this was, an array of Responses
        # content parts is read as a list; any other array stays text.
        for record_line, item in records:
            content = item.get("content")
            if isinstance(content, str) and content[:1] == "[" and "role" in item:
                reader.list_content(record_line, item, old_writer=old_writer)
    reader.recoveries.sort(key=lambda r: r.line)
    # Built without validation: the items are plain JSON data made here.
    return Decoded.model_construct(items=[item for _, item in records],
                                   format=_format(reader.kinds()), recoveries=reader.recoveries)
