"""The strict reader: summary text in the current format to items.

Two engines implement ``grammar/summary.lark``, and tests check that they
agree on arbitrary text (the same items, or the same error):

``"fast"`` (the default)
    One pass. The envelope is compared as strings; the records are read by
    successive anchored matches of the grammar's own record terminals
    (``PLAIN_RECORD`` or ``JSON_RECORD``), the JSON of a record decoded by the
    json module's C scanner in place. Text that does not follow the grammar is
    handed to the LALR parser, so a syntax error is always worded by the parser.
``"lark"``
    The LALR parser generated from the grammar reads the envelope and the run
    of records as one token; each record is then matched again for its fields.

Syntax comes first: text that does not follow the grammar raises a syntax
error even when one of its records is also out of sequence or not JSON.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, cast

from .. import grammar as _grammar
from .. import limits
from ..content import legacy_list, lists_read
from ..errors import DecodeError, DecodeReason, ReadFailure
from .json_record import json_object, json_value, whole_object

if TYPE_CHECKING:
    from lark import Token, Tree
    from lark.exceptions import UnexpectedInput

__all__ = [
    "KNOWN_ROLES", "SHARED_ROLES", "Engine", "check_engine", "describe", "envelope",
    "failure_error", "fast_reader", "lark_error", "read", "read_current", "read_with",
]

Item = dict[str, Any]
Engine = Literal["fast", "lark"]
# The router's look: a pattern that finds a line break before a body line, and how far it looks.
Look = tuple[re.Pattern[str], int]
Literals = tuple[tuple[str, str], ...]

# The roles of the grammar's KNOWN_ROLE (a test checks that they are the same).
KNOWN_ROLES = frozenset({"user", "assistant", "system", "developer"})
# Each known role as one str object, for every item to share (``.get(role, role)``)
# rather than hold a copy that the regex made: 50 bytes an item.
SHARED_ROLES = MappingProxyType({role: role for role in KNOWN_ROLES})

# What each terminal of both grammars means to a reader of an error message.
_DESCRIPTIONS = {
    "PREAMBLE": "the preamble line",
    "LEGACY_PREAMBLE": "the short legacy preamble",
    "START_MARKER": "the start marker line",
    "END_MARKER": "the end marker line",
    "EMPTY_TRANSCRIPT": "'(no previous turns recorded)'",
    "EMPTY_LINE": "'(no previous turns recorded)'",
    "_SIGNATURE": "a signature line",
    "_NL": "a line break",
    "RECORDS": "a numbered record 'N. role: content' or 'N. {json}'",
    "JSON_RECORD": "a numbered record 'N. {json}'",
    "PLAIN_RECORD": "a numbered record 'N. role: content'",
    "LINES": "a line of the transcript",
    "NUMBERED_LINE": "a numbered record",
    "TEXT_LINE": "a line of the transcript",
    "$END": "the end of the text",
}


def describe(terminal: str) -> str:
    """A terminal of the grammars, in words (never the terminal's own name)."""
    return _DESCRIPTIONS.get(terminal, "text that follows the summary grammar")


def _out_of_sequence(index: str, number: int, pos: int) -> ReadFailure:
    return ReadFailure(f"record number {index!r} out of sequence", pos,
                       (f"record {number}",), DecodeReason.NUMBERING)


def _is_maybe_legacy(role: str, content: str) -> bool:
    """Whether the lenient reader may read this plain record otherwise.

    It reads ``other: {json}`` as a typed item, as the Agents SDK does,
    ``user (a:b): x`` as a named user turn, and reports content that may be a
    legacy JSON list.
    """
    return role not in KNOWN_ROLES or content[:1] == "["


# --------------------------------------------------------------- the fast engine
# The signature line (``_SIGNATURE``): its first characters, and its pattern.
_SIGNATURE_START = _grammar.signature_parts()[0]
_signature = _grammar.terminal("_SIGNATURE").match


@functools.cache
def envelope(literals: Literals) -> tuple[str, str, str]:
    """The text before the body, the empty body line, and the end marker."""
    values = dict(literals)
    head = f"{values['PREAMBLE']}\n{values['START_MARKER']}\n"
    return head, _grammar.literal("EMPTY_TRANSCRIPT") + "\n", values["END_MARKER"]


@functools.cache
def _record(lenient_same: bool = False, legacy: bool = False,
            spilled: bool = False) -> re.Pattern[str]:
    """The record number, then ``KNOWN_PLAIN | JSON_RECORD | PLAIN_RECORD``: groups 1 to 7.

    With ``lenient_same``, ``KNOWN_PLAIN`` leaves to ``PLAIN_RECORD`` content
    that starts with "[" (which the lenient reader may read as a legacy JSON
    list), so that every record it matches reads the same leniently.

    With ``legacy`` (and ``lenient_same``), for the pass of ``loads``, a fourth
    alternative: the bare role of ``grammar/legacy.lark``'s ``LEGACY_BARE`` on
    one line, groups ``bare`` and ``bare_name`` (8 and 9), which the lenient
    reader reads as an empty turn. It needs no ":", which every other
    alternative but JSON's does, and a JSON record starts with "{", never a
    known role: no line matches two. Without ``legacy`` that alternative never
    matches (``(?!)``), so that a match has the same groups either way.

    With ``spilled`` too, the content of ``KNOWN_PLAIN`` and ``PLAIN_RECORD``
    goes on over the lines below up to the next numbered one
    (``spilled_content``), as 0.6 to 0.17.0 wrote multi-line content. (A
    separate pattern: the repetition costs every record about a quarter more.)

    Both record terminals start with the same number and ". " (checked here),
    matched once. ``KNOWN_PLAIN`` is ``PLAIN_RECORD``'s rest with the role and
    name replaced by ``KNOWN_ROLE``, its groups prefixed ``known_``: the usual
    record, matched without trying where the role ends. A line it matches
    reads the same as ``PLAIN_RECORD`` (a known role holds no " " or ":", so
    the role ends after it, with no name). No line matches both JSON and plain
    records (a plain role never starts with "{"), so the order only decides
    which is tried first.
    """
    if spilled and not legacy:
        raise ValueError("spilled content is a legacy form (legacy)")
    plain = _grammar.terminal("PLAIN_RECORD").pattern
    json_record = _grammar.terminal("JSON_RECORD").pattern
    number, role, rest = plain.partition("(?P<role>")
    _, colon, tail = rest.partition(": ?(?P<content>")
    if not (role and colon) or not number.startswith("(?P<index>"):
        raise AssertionError(f"PLAIN_RECORD {plain!r} has no number, then a role group "
                             "followed by ': ?'")
    json_number = number.replace("(?P<index>", "(?P<json_index>", 1)
    if not json_record.startswith(json_number):
        raise AssertionError(f"JSON_RECORD {json_record!r} does not start as {json_number!r}")
    known_role = _grammar.terminal("KNOWN_ROLE").pattern
    if lenient_same:  # after the ":", no "[" with or without the space (": ?")
        colon = colon.replace(": ?", r":(?! ?\[) ?", 1)
    plain_rest = plain[len(number):]
    if spilled:  # content spilled over the lines below
        line = "[^\n]*)\n"  # the grammar's own line break characters
        if not tail.endswith(line) or not plain_rest.endswith(line):
            raise AssertionError(f"PLAIN_RECORD {plain!r} does not end its content at the line")
        tail = tail[:-len(line)] + spilled_content() + ")\\n"
        plain_rest = plain_rest[:-len(line)] + spilled_content() + ")\\n"
    known = f"(?P<role>{known_role}){colon}{tail}".replace("(?P<", "(?P<known_")
    alternatives = f"{known}|{json_record[len(json_number):]}|{plain_rest}"
    order: tuple[str, ...] = ("index", "known_role", "known_content", "json", "role", "name",
                              "content")
    alternatives += f"|{_bare_role()}\\n" if legacy else "|(?!)(?P<bare>)(?P<bare_name>)"
    order += ("bare", "bare_name")
    pattern = re.compile(f"{number}(?:{alternatives})")
    if tuple(sorted(pattern.groupindex, key=pattern.groupindex.__getitem__)) != order:
        raise AssertionError(f"record groups {pattern.groupindex} are not {order}")
    return pattern


# How many lines a record may spill over and still be read in one match: the
# regular expression engine keeps state for each line it repeats over until the
# match ends. A record spilled over more is read by the lenient reader's general
# reading.
SPILLED_LINES = 1000


@functools.cache
def spilled_content() -> str:
    """A pattern for content that legacy writers spilled over lines: the rest of the
    line, then every line up to the next numbered one (``RECORD_NUMBER`` of
    ``grammar/legacy.lark``) or the end, over at most ``SPILLED_LINES`` lines."""
    numbered = _grammar.terminal("RECORD_NUMBER", "legacy").pattern
    if "(?P<number>" not in numbered:
        raise AssertionError(f"RECORD_NUMBER {numbered!r} has no number group")
    unnamed = numbered.replace("(?P<number>", "(?:")
    return f"[^\\n]*(?:\\n(?!{unnamed}|\\Z)[^\\n]*){{0,{SPILLED_LINES}}}"


@functools.cache
def typed_word() -> re.Pattern[str]:
    """The ``type`` of a legacy `type: {json}` record (``LEGACY_TYPED_HEAD``'s group)."""
    head = _grammar.terminal("LEGACY_TYPED_HEAD", "legacy").pattern
    found = re.search(r"\(\?P<type>(.*?)\): ", head)
    if found is None:
        raise AssertionError(f"LEGACY_TYPED_HEAD {head!r} has no type group before ': '")
    return re.compile(found[1])


def _bare_role() -> str:
    """``LEGACY_BARE`` after its number and ". ", its groups named ``bare`` and ``bare_name``."""
    legacy = _grammar.terminal("LEGACY_BARE", "legacy").pattern
    head = "[0-9]+\\. "
    if not legacy.startswith(head) or "(?P<role>" not in legacy or "(?P<name>" not in legacy:
        raise AssertionError(f"LEGACY_BARE {legacy!r} is not {head!r}, a role and a name")
    return legacy[len(head):].replace("(?P<role>", "(?P<bare>").replace("(?P<name>",
                                                                        "(?P<bare_name>")


# ``Match.lastindex`` of each alternative of a record: its last group (see _record).
_KNOWN, _JSON, _PLAIN = 3, 4, 7
# How many characters of whole lines the fast reader reads with one findall: its
# list of records stays small (a few hundred), which a long transcript reads faster.
_CHUNK = 16_384


@functools.cache
def _record_lines(lenient_same: bool = False, legacy: bool = False,
                  spilled: bool = False) -> re.Pattern[str]:
    """:func:`_record` at the start of a line only, for ``findall``."""
    return re.compile(f"(?<=\\n)(?:{_record(lenient_same, legacy, spilled).pattern})")


def _read_fast(
    text: str, literals: Literals, max_depth: int, *, why: bool = True,
    max_records: int = limits.DEFAULT_MAX_RECORDS, lenient_same: bool = False,
) -> list[Item] | None:
    """The items; None when the text breaks the grammar.

    A record out of sequence or not JSON raises ReadFailure when the syntax is
    sound. With ``why=False`` the syntax is not checked and that gives None
    too: any text that is not current gives None. Reading stops after
    ``max_records + 1`` records, giving None: the caller then checks the limit.
    With ``lenient_same`` it gives None too at the first plain record that the
    lenient reader may read otherwise (:func:`read_current`).
    """
    return fast_reader(literals, max_depth, max_records, why=why, lenient_same=lenient_same)(text)


@functools.cache
def fast_reader(literals: Literals, max_depth: int, max_records: int, *, why: bool,
                lenient_same: bool, look: Look | None = None,
                legacy: bool = False) -> Callable[[str], list[Item] | None]:
    """:func:`_read_fast` for one configuration, its constants bound once.

    A small summary reads in a couple of microseconds, so what every call
    would look up (the envelope, the record patterns, the shared roles) is
    looked up here. The usual handoff, one turn of a known role, is read from
    the match of its record; other bodies a run of whole lines at a time
    (``_CHUNK`` characters or so), each run's records found by one
    ``findall`` that must match every one of its lines.

    With ``look`` (the router's: a pattern and a number of characters; see
    ``Router.looks_current``), the body's whole lines in its first so many
    characters are searched for one that the pattern finds (the first line
    once its record is matched, the others before any is read), and None is
    given as soon as one is found. A body no longer than that is not searched:
    its one ``findall`` reads those lines, and gives up on such a line too.

    With ``legacy`` (and ``lenient_same``, for ``loads``), the legacy forms
    that the lenient reader reads the same way in one pass of a body numbered
    1, 2, 3, ... (``_lenient._Reader.read_in_order``) read as it reads them,
    their report left out (so ``decode`` reads such text leniently):

    * a bare role, an empty turn (``LEGACY_BARE``);
    * a known role's content spilled over the lines below it, up to the next
      numbered line (in a body that holds no start marker, which would be a
      summary spilled into the content): a run whose lines are not all
      records is read again with ``_record(..., spilled=True)``;
    * `type: {json}`, an item of that type (``LEGACY_TYPED_HEAD``'s word, no
      name; content that is no JSON object reads as that role's turn);
    * content that may be a legacy JSON list (it starts with "["): once every
      record is read, a list or text as the signs of the writer in the whole
      text decide (``_content.lists_read``).
    """
    if legacy and (why or not lenient_same):
        raise ValueError("legacy forms read only as the lenient reader reads them "
                         "(lenient_same), and give no error (why=False)")
    head, empty, end = envelope(literals)
    start_marker = dict(literals)["START_MARKER"]
    begin, tail = len(head), len(end)
    search, look_end = (look[0].search, begin - 1 + look[1]) if look is not None else (None, 0)
    record, findall = (_record(lenient_same, legacy).match,
                       _record_lines(lenient_same, legacy).findall)
    # A run whose lines are not all records is read again with content spilled over lines.
    spilled_findall = _record_lines(lenient_same, legacy, spilled=True).findall if legacy \
        else None
    records = _grammar.terminal("RECORDS").match
    known_roles = dict(SHARED_ROLES)  # a dict: the fastest lookup
    shared, whole = known_roles.get, whole_object
    typed = typed_word().fullmatch if legacy else None
    signature_start, signature = _SIGNATURE_START, _signature
    known, json, plain, chunk = _KNOWN, _JSON, _PLAIN, _CHUNK

    def spilled_into_summary(text: str) -> bool:
        """Content spilled over lines, in a body holding a start marker: the lenient
        reader reads the lines of a summary spilled into the content by the general rule."""
        return text.find(start_marker, begin, len(text) - tail) >= 0

    def read(text: str) -> list[Item] | None:
        if not (text.startswith(head) and text.endswith(end)):
            return None
        pos, stop = begin, len(text) - tail
        match = record(text, pos, stop)
        if match is None:  # a signature line, the empty transcript, or no record
            if text.startswith(signature_start, pos):
                line = signature(text, pos)
                if line is not None:
                    pos = line.end()
            if text.startswith(empty, pos):
                return [] if pos + len(empty) == stop else None
            match = record(text, pos, stop)
            if match is None:
                return None
        after = match.end()
        if after == stop:  # one record: the usual handoff
            if match[1] == "1":  # a known role's turn or a JSON object, read as in the loop
                which = match.lastindex
                if which == known:
                    return [{"role": known_roles[match[2]], "content": match[3]}]
                if which == json:
                    value = whole(match[4], max_depth)
                    if value is not None:
                        return [value]
            found: list[tuple[str, ...]] | None = [match.groups("")]  # as findall gives it
        elif text[stop - 1] != "\n":  # the last line would be left out of every run
            return None
        elif lenient_same and match.lastindex == plain and _is_maybe_legacy(match[5], match[7]) \
                and (typed is None or (match[5] not in known_roles
                     and (match[6] or not typed(match[5])))):
            return None  # as the loop would at this first record, before reading the rest
        elif search is not None and stop > look_end and search(text, after - 1, look_end):
            # The look, on the lines after the first (the first one's record was
            # just matched): the whole lines in the body's first ``look[1]`` characters.
            # (A shorter body is read in one findall, which finds such a line too.)
            return None
        else:
            found = None
        # The first record, just matched: the first run's findall starts after it.
        lead: re.Match[str] | None = match if found is None else None
        items: list[Item] = []
        append = items.append
        count = 0
        at = pos  # where the record being read starts, worked out only for an error
        # Legacy: signs of the writer, for content that starts with "[" (lists_read).
        old_writer = False  # content spilled, or `type: {json}` (0.6 to 0.17.0)
        listed = json_record = False  # such content in a plain turn; a JSON record
        bare = 0  # bare roles read (empty turns, but not `N. role: `)
        try:
            while pos < stop:
                if found is None:
                    cut = text.find("\n", pos + chunk, stop) + 1 or stop
                    if lead is None:
                        found = findall(text, pos, cut)
                    elif spilled_findall is not None and not text[after].isdigit():
                        found, lead = [], None  # the first record spilled: read it so at once
                    else:
                        found = findall(text, after, cut)
                        found.insert(0, lead.groups(""))
                        lead = None
                    lines = text.count("\n", pos, cut)
                    if len(found) != lines:  # a line that is not a record
                        if spilled_findall is None:
                            return None  # the parser says where
                        # Legacy: content spilled over lines? The run again, each record
                        # with the lines below it; then every line must be a record's
                        # (each record is whole lines, and none overlap).
                        found = spilled_findall(text, pos, cut)
                        if len(found) + sum(fields[2].count("\n") + fields[6].count("\n")
                                            for fields in found) != lines \
                                or spilled_into_summary(text):
                            return None
                        old_writer = True
                else:
                    cut = stop
                if count + len(found) > max_records:
                    return None
                first = count
                for (index, role, content, source, other, name, other_content, bare_role,
                     bare_name) in found:
                    count += 1
                    if role:  # KNOWN_PLAIN (findall gives "" for a group that took no part)
                        append({"role": known_roles[role], "content": content})
                    elif bare_role:  # LEGACY_BARE, with ``legacy`` only
                        append({"role": known_roles[bare_role], "content": ""} if not bare_name
                               else {"role": known_roles[bare_role], "name": bare_name,
                                     "content": ""})
                        bare += 1
                    elif source:  # JSON_RECORD
                        value = whole(source, max_depth)
                        if value is None:
                            # json_object says why the C scanner's fast path gives
                            # None, or reads the trailing spaces it leaves.
                            at = _line_after(text, pos, count - first - 1)
                            value = json_object(source, text.index("{", at), max_depth)
                        append(value)
                        json_record = True
                    else:  # PLAIN_RECORD
                        other = shared(other, other)
                        if not lenient_same or not _is_maybe_legacy(other, other_content):
                            append({"role": other, "content": other_content} if not name
                                   else {"role": other, "name": name, "content": other_content})
                        elif typed is None:
                            return None
                        elif other in known_roles:  # legacy: content that starts with "["
                            append({"role": other, "content": other_content} if not name
                                   else {"role": other, "name": name, "content": other_content})
                            listed = True
                        elif name or not typed(other) or "\n" in other_content:
                            return None  # (spilled `type: {json}`: not an item of that type)
                        else:  # `type: {json}` (legacy): an item of that type, as leniently
                            value = json_value(other_content)
                            if type(value) is not dict:
                                append({"role": other, "content": other_content})
                                listed = listed or other_content[:1] == "["
                            else:
                                value["type"] = other
                                append(value)
                                old_writer = True
                    if index != str(count):
                        if not why:  # as the except clause below would give
                            return None
                        at = _line_after(text, pos, count - first - 1)
                        raise _out_of_sequence(index, count, at)
                pos, found = cut, None
        except ReadFailure:
            if not why:
                return None
            run = records(text, at)
            if run is not None and run.end() == stop:
                raise  # the syntax is sound: the parser would reach this record too
            return None
        if old_writer or listed:
            _read_lists(items, old_writer, json_record, bare)
        return items

    return read


def _read_lists(items: list[Item], old_writer: bool, json_record: bool, bare: int) -> None:
    """Legacy content that starts with "[" in ``items``, read as the lenient reader reads
    it: as a list, when the writer's signs allow (``_content.lists_read``)."""
    # Without a sign of the old writer, no item is of a `type: {json}` record, and a
    # turn is empty in a plain record or a bare role (``bare`` of them) alone.
    empty_turn = not old_writer and not json_record and bare < sum(
        1 for item in items if item.get("content") == "")
    if not lists_read(old_writer=old_writer, json_record=json_record, empty_turn=empty_turn):
        return
    for item in items:
        content = item.get("content")
        if type(content) is str and content[:1] == "[" and "role" in item:
            value = legacy_list(content, old_writer=old_writer)[1]
            if value is not None:
                item["content"] = value


def _line_after(text: str, pos: int, lines: int) -> int:
    """Where the line ``lines`` lines after the one that starts at ``pos`` starts."""
    for _ in range(lines):
        pos = text.index("\n", pos) + 1
    return pos


# --------------------------------------------------------------- the LALR engine
def _read_lark(text: str, literals: Literals, max_depth: int, *,
               lenient_same: bool = False) -> list[Item] | None:
    """The items, read by the LALR parser; with ``lenient_same``, None when a
    plain record may read otherwise leniently (as for :func:`_read_fast`)."""
    from lark.exceptions import UnexpectedInput  # Lark only for engine="lark" and errors

    try:
        tree = _grammar.parser("summary", literals=literals).parse(text)
    except UnexpectedInput as exc:
        raise lark_error(text, exc) from None
    body = cast("Tree[Token]", tree.children[2])
    items: list[Item] = []
    maybe_legacy = False
    for run in cast("list[Token]", body.children) if body.data == "records" else ():
        maybe_legacy = _records(run, max_depth, items) or maybe_legacy
    return None if lenient_same and maybe_legacy else items


def _records(run: Token, max_depth: int, items: list[Item]) -> bool:
    """Append the items of the ``RECORDS`` token ``run``; whether a plain one
    may read otherwise leniently."""
    plain = _grammar.terminal("PLAIN_RECORD").match
    json_record = _grammar.terminal("JSON_RECORD").match
    text, pos, start = str(run), 0, run.start_pos or 0
    maybe_legacy = False
    while pos < len(text):
        match = plain(text, pos)
        if match is not None:
            index, role, name, content = match.group("index", "role", "name", "content")
            role = SHARED_ROLES.get(role, role)
            item = {"role": role, "content": content}
            if name is not None:
                item = {"role": role, "name": name, "content": content}
            maybe_legacy = maybe_legacy or _is_maybe_legacy(role, content)
        else:
            match = json_record(text, pos)
            assert match is not None  # the lexer matched one of the two here
            index = match["json_index"]
            item = json_object(match["json"], start + match.start("json"), max_depth)
        items.append(item)
        if index != str(len(items)):
            raise _out_of_sequence(index, len(items), start + pos)
        pos = match.end()
    return maybe_legacy


def lark_error(text: str, exc: UnexpectedInput) -> DecodeError:
    """Translate a Lark error into a DecodeError that says, in words, what was expected."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

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
    expected = tuple(sorted({describe(n) for n in names}))
    pos = getattr(exc, "pos_in_stream", None)
    at_end = isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    )
    if pos is None or pos < 0 or at_end:
        pos = len(text)
    message = f"{what}; expected {' or '.join(expected)}" if expected else what
    return DecodeError(message, text, pos, expected, DecodeReason.SYNTAX)


# --------------------------------------------------------------- the entry point
def check_engine(engine: str) -> None:
    """ValueError for an engine that is neither ``"fast"`` nor ``"lark"``."""
    if engine not in ("fast", "lark"):
        raise ValueError(f"engine must be 'fast' or 'lark', not {engine!r}")


def read(
    text: str, literals: Literals, max_depth: int, engine: Engine = "fast", *,
    max_records: int = limits.DEFAULT_MAX_RECORDS,
) -> list[Item]:
    """The items of a current-format summary.

    Raises DecodeError on more than ``max_records`` numbered lines (before
    anything else), any deviation from the grammar, a record out of sequence,
    or a JSON record that is not an RFC 8259 object within ``max_depth`` levels.
    """
    check_engine(engine)
    fast = (fast_reader(literals, max_depth, max_records, why=True, lenient_same=False)
            if engine == "fast" else None)
    return read_with(fast, text, literals, max_depth, max_records)


def read_with(fast: Callable[[str], list[Item] | None] | None, text: str, literals: Literals,
              max_depth: int, max_records: int) -> list[Item]:
    """:func:`read`, with ``fast`` (that of :func:`fast_reader` for this configuration,
    ``why=True``) first, or the LALR parser alone when ``fast`` is None."""
    if fast is not None:
        try:
            result = fast(text)
        except ReadFailure as failure:
            raise failure_error(failure, text, max_records) from None
        if result is not None:
            return result
    try:
        limits.check_records(text, max_records=max_records)
        items = _read_lark(text, literals, max_depth)
        assert items is not None
        return items
    except ReadFailure as failure:
        raise failure.at(text) from None


def failure_error(failure: ReadFailure, text: str, max_records: int) -> DecodeError:
    """The DecodeError for what the fast reader (``why=True``) raised on ``text``.

    That reader reads at most ``max_records + 1`` records, so the limit is
    counted only now: text over it raises that limit's error instead.
    """
    limits.check_records(text, max_records=max_records)
    return failure.at(text)


def read_current(
    text: str, literals: Literals, max_depth: int, engine: Engine = "fast", *,
    max_records: int = limits.DEFAULT_MAX_RECORDS,
) -> list[Item] | None:
    """The items of ``text`` when it is current and the lenient reader would
    read it the same; None otherwise, without working out why.

    The lenient reader may read otherwise a plain record whose role is not a
    ``KNOWN_ROLE`` (``other: {json}`` as a typed item, as the Agents SDK does;
    ``user (a:b): x`` as a named user turn) or whose content starts with "["
    (a legacy JSON list). None too when the text is over ``max_records``: the
    lenient reader checks that limit before it reads the text.
    """
    if engine == "fast":
        return fast_reader(literals, max_depth, max_records, why=False, lenient_same=True)(text)
    try:
        limits.check_records(text, max_records=max_records)
        return _read_lark(text, literals, max_depth, lenient_same=True)
    except (DecodeError, ReadFailure):
        return None
