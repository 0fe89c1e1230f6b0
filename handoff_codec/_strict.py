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
import itertools
import re
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, cast

from . import _grammar
from . import _limits as limits
from ._errors import DecodeError, DecodeReason, ReadFailure
from ._json import json_object, whole_object

if TYPE_CHECKING:
    from lark import Token, Tree
    from lark.exceptions import UnexpectedInput

__all__ = [
    "KNOWN_ROLES", "SHARED_ROLES", "Engine", "check_engine", "describe", "envelope",
    "lark_error", "read", "read_current",
]

Item = dict[str, Any]
Engine = Literal["fast", "lark"]
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
def _record() -> re.Pattern[str]:
    """``KNOWN_PLAIN | JSON_RECORD | PLAIN_RECORD``, their groups numbered 1 to 9 in that order.

    ``KNOWN_PLAIN`` is ``PLAIN_RECORD`` with the role and name replaced by
    ``KNOWN_ROLE``, its groups prefixed ``known_``: the usual record, matched
    without trying where the role ends. A line it matches reads the same as
    ``PLAIN_RECORD`` (a known role holds no " " or ":", so the role ends after
    it, with no name). No line matches both JSON and plain records (a plain
    role never starts with "{"), so the order only decides which is tried first.
    """
    plain = _grammar.terminal("PLAIN_RECORD").pattern
    head, role, rest = plain.partition("(?P<role>")
    _, colon, tail = rest.partition(": ?(?P<content>")
    if not (role and colon):
        raise AssertionError(f"PLAIN_RECORD {plain!r} has no role group followed by ': ?'")
    known_role = _grammar.terminal("KNOWN_ROLE").pattern
    known = f"{head}(?P<role>{known_role}){colon}{tail}".replace("(?P<", "(?P<known_")
    json_record = _grammar.terminal("JSON_RECORD").pattern
    pattern = re.compile(f"(?:{known})|(?:{json_record})|(?:{plain})")
    order = ("known_index", "known_role", "known_content", "json_index", "json",
             "index", "role", "name", "content")
    if tuple(sorted(pattern.groupindex, key=pattern.groupindex.__getitem__)) != order:
        raise AssertionError(f"record groups {pattern.groupindex} are not {order}")
    return pattern


def _read_fast(
    text: str, literals: Literals, max_depth: int, *, why: bool = True,
    max_records: int = limits.DEFAULT_MAX_RECORDS, lenient_same: bool = False,
) -> list[Item] | None:
    """The items; None when the text breaks the grammar.

    A record out of sequence or not JSON raises ReadFailure when the syntax is
    sound. With ``why=False`` the syntax is not checked: any text that is
    not current may then give None or ReadFailure. Reading stops after
    ``max_records + 1`` records, giving None: the caller then checks the limit.
    With ``lenient_same`` it gives None too at the first plain record that the
    lenient reader may read otherwise (:func:`read_current`).
    """
    head, empty, end = envelope(literals)
    if not text.startswith(head):
        return None
    pos = len(head)
    if text.startswith(_SIGNATURE_START, pos):
        signature = _signature(text, pos)
        if signature is not None:
            pos = signature.end()
    items: list[Item] = []
    if text.startswith(empty, pos):
        pos += len(empty)
    else:
        append, shared, whole = items.append, SHARED_ROLES.get, whole_object
        known_roles = SHARED_ROLES
        match = None
        try:
            # Pattern.scanner(...).match: each match anchored where the last ended;
            # the record numbers "1", "2", ... made in C alongside (an endless iterator).
            scan = _record().scanner(text, pos).match  # type: ignore[attr-defined]
            numbers = map(str, itertools.count(1))
            matches = itertools.islice(iter(scan, None), max_records + 1)
            for match, number in zip(matches, numbers, strict=False):
                (known_index, known, known_content, json_index, json_text,
                 index, role, name, content) = match.groups()
                if known is not None:
                    append({"role": known_roles[known], "content": known_content})
                    if known_content[:1] == "[" and lenient_same:
                        return None
                    if known_index != number:
                        raise _out_of_sequence(known_index, len(items), match.start())
                elif json_text is None:
                    role = shared(role, role)
                    if name is None:
                        append({"role": role, "content": content})
                    else:
                        append({"role": role, "name": name, "content": content})
                    if lenient_same and (content[:1] == "[" or role not in KNOWN_ROLES):
                        return None
                    if index != number:
                        raise _out_of_sequence(index, len(items), match.start())
                else:
                    # json_object says why the C scanner's fast path gives None, or
                    # reads the trailing spaces it leaves.
                    value = whole(json_text, max_depth)
                    if value is None:
                        value = json_object(json_text, match.start("json"), max_depth)
                    append(value)
                    if json_index != number:
                        raise _out_of_sequence(json_index, len(items), match.start())
        except ReadFailure:
            if not why:
                raise
            assert match is not None
            run = _grammar.terminal("RECORDS").match(text, match.start())
            if run is not None and len(text) - run.end() == len(end) and text.endswith(end):
                raise  # the syntax is sound: the parser would reach this record too
            return None
        if match is not None:
            pos = match.end()
        if not items or len(items) > max_records:
            return None
    if len(text) - pos != len(end) or not text.endswith(end):
        return None
    return items


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
    try:
        if engine == "fast":
            # The fast reader reads at most max_records + 1 records, so the limit
            # is counted only when it does not return the items.
            try:
                result = _read_fast(text, literals, max_depth, max_records=max_records)
            except ReadFailure:
                limits.check_records(text, max_records=max_records)
                raise
            if result is not None:
                return result
        limits.check_records(text, max_records=max_records)
        items = _read_lark(text, literals, max_depth)
        assert items is not None
        return items
    except ReadFailure as failure:
        raise failure.at(text) from None


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
        try:
            return _read_fast(text, literals, max_depth, why=False, max_records=max_records,
                              lenient_same=True)
        except ReadFailure:
            return None
    try:
        limits.check_records(text, max_records=max_records)
        return _read_lark(text, literals, max_depth, lenient_same=True)
    except (DecodeError, ReadFailure):
        return None
