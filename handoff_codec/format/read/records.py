"""Records to items: each record's text read by the grammar's record forms, and the content rule.

A record is its head line (a numbered line that starts a record, see
:mod:`.evidence`) and the lines up to the next head. Its item follows from
the head's kind (grammar/legacy.lark):

* ``KNOWN_LINE``: ``{"role", "content"}``; content that spilled over the
  lines below is joined back with "\\n" (``continuation``);
* ``PLAIN_LINE``: ``LEGACY_PLAIN`` over the whole record, or ``LEGACY_NAMED``
  for a known role whose name holds ":" or "("; a `type: {json}` line whose
  word is an ``ITEM_TYPE`` is an item of that type (``typed_record``); any
  other role is a message with that role, whatever its content looks like;
* ``JSON_LINE``: the JSON object (``not_json`` when it is none: read as a
  plain record, as the Agents SDK does); lines below it belong to no record;
* ``BARE_LINE``: an empty turn (``bare_role``); lines below belong to none;
* ``NUMBERED_LINE``: no record (``unrecognised``).

The content rule: text stays text. Content that is a JSON array of content
parts may have been list content, if a writer the evidence leaves wrote lists
that way: it is kept as text, noted ``ambiguous``, and the list reading is a
candidate (``Decoded.candidates``).
"""

from __future__ import annotations

import functools
import re
from array import array

from .. import grammar
from ..errors import DecodeReason, ReadFailure
from ..limits import depth_exceeded_at
from ..report import Recoveries as _Recoveries
from . import lines as _lines
from .evidence import (
    MESSAGE_ROLES,
    UNTYPED,
    bare_named,
    form_of,
    named_bare,
    opens_name,
    spills_at,
    typed_word,
)
from .generations import Form
from .json_record import json_object, json_value, whole_object
from .lines import (
    BARE_NAME,
    BARE_ROLE,
    JSON_OBJECT,
    KNOWN_CONTENT,
    KNOWN_ROLE,
    PLAIN_CONTENT,
    PLAIN_NAME,
    PLAIN_ROLE,
)
from .notes import NOTES, Code
from .vocabulary import CONTENT_PART_TYPES, WORD, message

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Collection, Iterator
    from typing import Any, Final

    from ..report import Recoveries
    from .evidence import Numbered, Numbering

__all__ = ["Item", "Names", "RecordReader", "content_parts"]

Item = dict[str, "Any"]


@functools.cache
def _legacy(name: str) -> re.Pattern[str]:
    return grammar.terminal(name, "legacy")


def content_parts(content: str) -> list[Any] | None:
    """``content`` as a list of content parts, when it is a JSON array of them (else None).

    A content part is an object with a ``type`` of grammar/legacy.lark's
    ``CONTENT_PART_TYPE``; ``[1, 2]`` or ``[{"a": 1}]`` can only be text. ``[]`` is the
    empty list.
    """
    value = json_value(content)
    if not isinstance(value, list):
        return None
    for part in value:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str) \
                or part["type"] not in CONTENT_PART_TYPES:
            return None
    return value


class Names:
    """Where a name that holds '): ' ends (the main reading: 0, at the first)."""

    LAST: Final = 1  # `user (a): b): c): d`: name "a): b): c"
    SECOND: Final = 2  # name "a): b"


class RecordReader:
    """Reads the records of one body into items, noting every recovery.

    ``forms`` collects the :class:`~.generations.Form` of each record read;
    ``listed`` the index of every item whose content may be a list, with its
    line, where its content starts and the list (the content rule decides
    on them once the writers are known).
    """

    __slots__ = (
        "bare",
        "forms",
        "guarded",
        "lines",
        "listed",
        "max_depth",
        "named",
        "names",
        "note",
        "recoveries",
        "spilling",
        "splits",
        "text",
        "typed_words",
        "words",
    )

    def __init__(self, lines: Numbered, recoveries: Recoveries, max_depth: int, *,
                 words: bool = False, names: int = 0, bare: Collection[int] = ()) -> None:
        self.lines, self.text, self.max_depth = lines, lines.text, max_depth
        self.recoveries = recoveries
        self.note = recoveries.add
        self.forms = Form.SPILLED if lines.unnumbered else 0
        # Content that may be a list: its item's index, line and offset, 3 ints each.
        self.listed = array("q")
        # ``words``: a `word: {json}` record of a word outside the item types is an item of
        # that type (a writer of typed records is left); else a message of that role.
        self.words, self.typed_words = words, 0
        # ``names`` (:class:`Names`): where a name that holds "): " ends; the names read
        # to the first "): " that may end later (and the most "): " after one).
        self.names, self.named, self.splits = names, 0, 0
        # ``bare``: the heads `N. role (a): b)` read as an empty turn named `a): b` (of
        # ``Numbering.bare_named``, each else noted ambiguous).
        self.bare = bare
        # The item of each guarded head: (head, item index) pairs; where there is one, the
        # items whose record content may have spilled from (no tool call before one pairs
        # with an output after it: :func:`~.authority.lowered`).
        self.guarded: list[tuple[int, int]] = []
        self.spilling: list[int] = []

    def read(self, numbering: Numbering, first_line: int) -> list[Item]:
        """The items of the records that start on ``numbering.heads``; the body's first
        line is line ``first_line`` of the text."""
        lines, text, note = self.lines, self.text, self.note
        starts, heads = lines.starts, numbering.heads
        fields = lines.fields
        items: list[Item] = []
        append = items.append
        renumbered = dict(zip(numbering.renumbered, numbering.expected, strict=True))
        doubtful = iter(numbering.doubtful)
        doubt = next(doubtful, -1)
        lowered = numbering.lowered
        guarded = set(numbering.guarded) if len(numbering.guarded) else None
        bare = set(numbering.bare_named) if len(numbering.bare_named) else None
        line, at = first_line, lines.begin  # the line number of offset ``at``
        count, find = text.count, text.find
        last = len(heads) - 1
        for position, head in enumerate(heads):
            start = starts[head]
            stop = starts[heads[position + 1]] if position < last else lines.end
            line += count("\n", at, start)
            at = start
            if renumbered:
                expected = renumbered.get(head)
                if expected is not None:
                    note(line, Code.RENUMBERED, start, expected)
            fields_of = fields[head] if fields is not None else lines.line(head)
            role = fields_of[KNOWN_ROLE]
            before = len(items)
            if role and find("\n", start, stop - 1) < 0:  # KNOWN_LINE, alone: the usual record
                if not fields_of[KNOWN_CONTENT]:
                    self.forms |= Form.EMPTY_TURN
                append(message(role, fields_of[KNOWN_CONTENT]))
            elif bare is not None and head in bare:
                self.bare_named(items, fields_of, start, stop, line, head)
            else:
                self.record(items, fields_of, start, stop, line)
            if guarded is not None:
                if head in guarded and 0 < before < len(items):
                    self.guarded.append((head, before))
                if before < len(items) and spills_at(lines, head, fields_of, self.max_depth):
                    self.spilling.append(before)
            doubt_line, doubt_at = line, start  # counted on, not from the head each time
            while doubt >= 0 and starts[doubt] < stop:  # lines of this record's content
                if starts[doubt] > start:
                    pos = starts[doubt]
                    doubt_line += count("\n", doubt_at, pos)
                    doubt_at = pos
                    end = find("\n", pos, pos + 60)
                    why = lowered.get(doubt) if lowered else None
                    if why is not None:
                        note(doubt_line, Code.AMBIGUOUS_AUTHORITY, pos, why)
                    else:
                        note(doubt_line, Code.AMBIGUOUS_CONTENT, pos,
                             60 if end < 0 else end - pos)
                doubt = next(doubtful, -1)
        return items

    def record(self, items: list[Item], head: _lines.Line, start: int, stop: int,
               line: int) -> None:
        """Append the item of the record ``text[start:stop]`` (its head line ``head``, on
        ``line``) to ``items``; nothing when it is no record."""
        text, note = self.text, self.note
        after = text.index("\n", start) + 1  # where the lines below the head start
        spilled = text.count("\n", after, stop) if after < stop else 0
        role = head[KNOWN_ROLE]
        if role:  # KNOWN_LINE, the usual record
            if spilled:
                note(line, Code.CONTINUATION, spilled)
                content = head[KNOWN_CONTENT] + text[after - 1:stop - 1]
            else:
                content = head[KNOWN_CONTENT]
                if not content:
                    self.forms |= Form.EMPTY_TURN
            items.append(message(role, content))
            return
        kind = _lines.kind(head)
        if kind == _lines.PLAIN:
            if self.typed(items, head, start, line, spilled):
                self.unrecognised(after, stop, line + 1)
                return
            self.forms |= form_of(head, not spilled, self.max_depth)
            if spilled and (named_bare(head) or opens_name(head)) \
                    and self.spanning(items, start, stop, line, spilled):
                return
            self.plain(items, start, stop, line, spilled)
            return
        if kind == _lines.JSON:
            self.json(items, head, start, line)
        elif kind == _lines.BARE:
            if spilled and head[BARE_NAME] and self.spanning(items, start, stop, line, spilled):
                return
            note(line, Code.BARE_ROLE)
            self.forms |= Form.BARE_ROLE
            items.append(message(head[BARE_ROLE], "", head[BARE_NAME] or None))
        else:  # NUMBERED: a record only if its lines hold `role: content` (a name that spilled)
            if spilled and (named_bare(head) or opens_name(head)) \
                    and self.spanning(items, start, stop, line, spilled):
                return
            self.plain(items, start, stop, line, spilled)
            return
        self.unrecognised(after, stop, line + 1)

    def bare_named(self, items: list[Item], head: _lines.Line, start: int, stop: int,
                   line: int, index: int) -> None:
        """A record `N. role (a): b)` (numbered line ``index``) whose line is also an empty
        turn named `a): b`: read so when ``bare`` holds it, else as the turn named `a`
        (``ambiguous``)."""
        text = self.text
        end = text.index("\n", start)
        match = bare_named(text, start, end)
        assert match is not None  # (evidence._bare_reading)
        if index not in self.bare:
            at = match.start("role")
            self.note(line, Code.AMBIGUOUS_BARE_NAME, at, end - at)
            self.record(items, head, start, stop, line)
            return
        self.note(line, Code.BARE_ROLE)
        self.forms |= Form.BARE_ROLE
        items.append(message(match["role"], "", match["name"]))
        self.unrecognised(end + 1, stop, line + 1)

    def spanning(self, items: list[Item], start: int, stop: int, line: int,
                 spilled: int) -> bool:
        """Append the item of a record `N. role (name)` (``text[start:stop]``) whose name goes
        on over the lines below it, if it does (``LEGACY_NAME_SPANS``): an empty turn whose
        name ends with the record's last ")", or a message whose name ends at the first
        "): " after the head's line (a name written verbatim holds any text)."""
        match = _legacy("LEGACY_NAME_SPANS").fullmatch(self.text, start, stop - 1)
        if match is None:
            return False
        role, name, content = match.group("role", "name", "content")
        self.note(line, Code.CONTINUATION, spilled)
        if content is not None and ("): " in content or content.rstrip(" \t")[-1:] == ")"):
            # the name may end at a later '): ', or be an empty turn's to the last ')'
            self.note(line, Code.AMBIGUOUS_NAME, match.start("role"), len(role))
        if content is None:
            self.note(line, Code.BARE_ROLE)
            self.forms |= Form.BARE_ROLE
        items.append(message(role, content or "", name))
        return True

    def typed(self, items: list[Item], head: _lines.Line, start: int, line: int,
              spilled: int) -> bool:
        """Append the item of a `word: {json}` record (``head``), if it is one: a word of
        the item types or ``item`` (0.6 to 0.17.0's item without a type), or with
        ``words`` any other word, alone on its line (``ambiguous``: it may be a message
        of that role)."""
        word, source = head[PLAIN_ROLE], head[PLAIN_CONTENT]
        if head[PLAIN_NAME] or source[:1] != "{":
            return False
        if typed_word(word, Form.TYPED):
            at = self.text.index(". ", start) + 2  # the word's offset
            value = whole_object(source, self.max_depth)
            standard = value is not None
            if value is None:
                value = whole_object(source, self.max_depth, constants=True)
                if value is None:  # no JSON object: a message of that role, flagged
                    if depth_exceeded_at(source, self.max_depth) is not None:
                        # past max_depth: the depth error, as a JSON record's
                        json_object(source, self.text.index("{", at), self.max_depth)
                    self.note(line, Code.AMBIGUOUS_NOT_ITEM, at, len(word))
                    return False
            self.note(line, Code.TYPED_RECORD, at, len(word))
            if not standard:
                self.note(line, Code.NON_STANDARD_JSON)
        elif self.words and not spilled and word not in MESSAGE_ROLES \
                and WORD.fullmatch(word) is not None:
            value = whole_object(source, self.max_depth, constants=True)
            if value is None:
                return False
            self.note(line, Code.AMBIGUOUS_TYPED, self.text.index(". ", start) + 2, len(word))
            self.typed_words += 1
        else:
            return False
        self.forms |= Form.TYPED
        if word != UNTYPED:
            value["type"] = word
        items.append(value)
        return True

    def unrecognised(self, pos: int, stop: int, line: int) -> None:
        """Note each line of ``text[pos:stop]`` as belonging to no record."""
        text = self.text
        while pos < stop:
            end = text.index("\n", pos)
            self.note(line, Code.UNRECOGNISED, pos, min(end - pos, 60))
            pos, line = end + 1, line + 1

    def plain(self, items: list[Item], start: int, stop: int, line: int, spilled: int) -> None:
        """A `role: content` record over ``text[start:stop]`` (its last "\\n" left out)."""
        text = self.text
        match = _legacy("LEGACY_PLAIN").fullmatch(text, start, stop - 1)
        named = None
        if match is not None and match["role"] not in MESSAGE_ROLES and (
                match["name"] is None or match["role"].count("(") != match["role"].count(")")):
            # `user (team:alice): q` reads as role "user (team" by the first colon,
            # and `assistant (agent (v2)): a` as role "assistant (agent" and name
            # "v2)": a known role with a name holding ":" or "(" is likelier. A role
            # that closes each parenthesis it opens and has a name, as in the Agents
            # SDK's `assistant (bot) (0): ` for role "assistant (bot)" and name "0",
            # keeps that reading.
            named = _legacy("LEGACY_NAMED").fullmatch(text, start, stop - 1)
        if named is None and (match is None or match["role"] not in MESSAGE_ROLES) \
                and not spilled:
            bare = bare_named(text, start, stop - 1)
            if bare is not None:  # `N. user (ops:bob)`: a known role's empty turn, named so
                self.note(line, Code.BARE_ROLE)
                self.forms |= Form.BARE_ROLE
                items.append(message(bare["role"], "", bare["name"]))
                return
        if match is None:  # no ":" on the record's lines: not a record
            self.unrecognised(start, stop, line)
            return
        role, name, content = (named or match).group("role", "name", "content")
        content_at = (named or match).start("content")
        if named is not None and "): " in name:  # `user (   ): x (y): z`: to the first "): "
            name, _, rest = name.partition("): ")
            content, content_at = f"{rest}): {content}", named.start("name") + len(name) + 3
        first = content.partition("\n")[0]
        if name is not None and role in MESSAGE_ROLES and "): " in first:
            # `user (a): b): hi`: name "a" and content "b): hi", or name "a): b" and "hi"
            self.named += 1
            self.splits = max(self.splits, first.count("): "))
            self.note(line, Code.AMBIGUOUS_NAME, (named or match).start("role"), len(role))
            if self.names & (Names.LAST | Names.SECOND):
                cut = first.rindex("): ") if self.names & Names.LAST else first.index("): ")
                name, content = f"{name}): {content[:cut]}", content[cut + 3:]
        if spilled:
            self.note(line, Code.CONTINUATION, spilled)
        if _cut_name(role) or name == "":
            self.note(line, Code.AMBIGUOUS_ROLE, (named or match).start("role"), len(role))
        item = message(role, content, name)
        if content[:1] == "[":
            self.maybe_list(len(items), content, content_at, line)
        items.append(item)

    def json(self, items: list[Item], head: _lines.Line, start: int, line: int) -> None:
        """A JSON record (``head``, on the line that starts at ``start``)."""
        source = head[JSON_OBJECT]
        value = whole_object(source, self.max_depth)
        if value is None:
            at = self.text.index("{", start)
            try:
                value = json_object(source, at, self.max_depth,
                                    on_constant=lambda: self.note(line, Code.NON_STANDARD_JSON))
            except ReadFailure as failure:
                if failure.reason is DecodeReason.DEPTH:
                    raise
                self.note(line, Code.NOT_JSON)
                self.plain(items, start, self.text.index("\n", start) + 1, line, 0)
                return
        self.forms |= form_of(head, True, self.max_depth, value)
        items.append(value)

    def maybe_list(self, index: int, content: str, at: int, line: int) -> None:
        """Content that starts with "[": where it is held, when it is an array of content
        parts (the content rule decides once the writers are known)."""
        if content_parts(content) is not None:
            self.listed.extend((index, line, at))

    def settle_lists(self, lists: bool) -> array[int]:
        """Note ``ambiguous`` on each held list when a writer wrote lists after the colon
        (``lists``), in line order with the other notes; the items noted."""
        if not lists or not self.listed:
            return array("q")
        self.recoveries.merge(_list_notes(self.text, self.listed))
        return self.listed[::3]


def _list_notes(text: str, listed: array[int]) -> Iterator[tuple[int, int, int, int]]:
    """The ``ambiguous`` note of each held list (``listed``: item, line, offset), one at a
    time: a generator function, as mypyc would build the list of a generator expression."""
    for k in range(0, len(listed), 3):
        at = listed[k + 2]
        yield listed[k + 1], Code.AMBIGUOUS_LIST, at, min(60, text.find("\n", at) - at)


def new_recoveries(text: str) -> Recoveries:
    """An empty compact list of recoveries for ``text``, with the reader's notes."""
    return _Recoveries(text, NOTES)


def _cut_name(role: str) -> bool:
    """Whether ``role`` is no role but the head of a name cut short: a role every writer
    writes, then " (" and a name it does not close, a role holding a line break, or one
    that starts as a JSON object. No writer writes such a role; it is a name written
    verbatim read at the wrong ":"."""
    if "\n" in role or "\r" in role or role[:1] == "{":  # ("{": a JSON record's)
        return True
    head, paren, _ = role.partition(" (")
    return bool(paren) and head in MESSAGE_ROLES and (
        role.count("(") > role.count(")") or role[-1:] in (" ", "\t"))  # (`user (a) : x`)
