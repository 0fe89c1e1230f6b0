"""The reading pipeline: envelope -> lines -> writer evidence -> records -> content -> report.

One :class:`Reader` per codec configuration (built once, cached). Each read
goes through the same steps:

1. the envelope (``envelope.py``): where the body is;
2. the body's lines, each of one kind of ``grammar/legacy.lark`` (``lines.py``,
   or the Lark parser's tokens with ``engine="lark"``, ``reference.py``);
3. the writer evidence and the numbering (``evidence.py``): which writers the
   lines allow, which lines start records;
4. the records and their content (``records.py``);
5. the report (``Decoded``): the writer, the recoveries, the other readings.

A summary in the codec's own envelope whose every line is a current-format
record (a known role, a JSON object, or a `role (name): content` record),
numbered 1, 2, 3, ... leaves nothing to decide in steps 3 and 4: the fast
engine reads it in one pass of the same line terminals (``Reader.current``);
tests check that this pass gives what the steps give (the Lark reference
always takes the steps).

``strict=True`` accepts only the current format (``grammar/summary.lark``):
the same pass, and an error where it stops.
"""

from __future__ import annotations

import functools

from .. import grammar, limits
from ..errors import DecodeError, DecodeReason, ReadFailure
from ..limits import depth_exceeded_at
from ..report import Candidate, Decoded, Format
from . import evidence, reference
from .envelope import Envelope, splitter
from .generations import candidates, label
from .json_record import json_object, strict_scanner
from .lines import line_pattern, usual_pattern
from .notes import Code
from .records import RecordReader, new_recoveries
from .vocabulary import SHARED_ROLES

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from .lines import Line

    Engine = Literal["fast", "lark"]

__all__ = ["Reader", "check_engine", "reader"]

Item = dict[str, "Any"]
Literals = tuple[tuple[str, str], ...]

# How many characters of whole lines one findall reads: its list of lines stays
# small (a few hundred), which a long transcript reads faster.
_CHUNK = 16_384


def check_engine(engine: str) -> None:
    """ValueError for an engine that is neither ``"fast"`` nor ``"lark"``."""
    if engine not in ("fast", "lark"):
        raise ValueError(f"engine must be 'fast' or 'lark', not {engine!r}")


class _Reading:
    """What steps 3 to 5 found: the items and what the report says of them."""

    __slots__ = ("candidates", "items", "recoveries", "writers")

    def __init__(self, items: list[Item], recoveries: Any, writers: tuple[Any, ...],
                 candidates: tuple[Candidate, ...]) -> None:
        self.items, self.recoveries = items, recoveries
        self.writers, self.candidates = writers, candidates

    def decoded(self) -> Decoded:
        if not len(self.recoveries):
            return Decoded(items=self.items, format=Format.CURRENT, recoveries=self.recoveries,
                           candidates=self.candidates)
        unkept: dict[str, None] = {}
        for writer in self.writers:
            unkept.update(dict.fromkeys(writer.unkept))
        return Decoded(items=self.items, format=label(self.writers), recoveries=self.recoveries,
                       writers=tuple(writer.name for writer in self.writers),
                       unkept=tuple(unkept), candidates=self.candidates)


class Reader:
    """The readings of one codec configuration: envelope, limits and JSON depth."""

    __slots__ = ("current", "end", "literals", "max_depth", "max_records", "split", "start")

    def __init__(self, literals: Literals, max_depth: int, max_records: int) -> None:
        values = dict(literals)
        self.literals, self.max_depth, self.max_records = literals, max_depth, max_records
        self.start, self.end = values["START_MARKER"], values["END_MARKER"]
        self.split = splitter(values["PREAMBLE"], self.start, self.end)
        self.current = _current_pass(values["PREAMBLE"], self.start, self.end, max_depth,
                                     max_records)

    # ------------------------------------------------------------ the entry points
    def items(self, text: str, engine: Engine = "fast") -> list[Item]:
        """The items of the lenient reading (``loads``)."""
        if engine == "fast":
            items = self.current(text, False)
            if items is not None:
                return items
        return self._read(text, engine).items

    def decode(self, text: str, engine: Engine = "fast") -> Decoded:
        """The lenient reading with its report (``decode``)."""
        if engine == "fast":
            items = self.current(text, False)
            if items is not None:
                return Decoded(items=items, format=Format.CURRENT, recoveries=[])
        return self._read(text, engine).decoded()

    def strict(self, text: str, engine: Engine = "fast") -> list[Item]:
        """The items of a current-format summary (``loads(strict=True)``); DecodeError else."""
        if engine == "fast":
            items = self.current(text, True)
            if items is not None:
                return items
        self._check_records(text)
        if engine == "lark":
            return reference.strict_items(text, self.literals, self.max_depth)
        return self._strict_read(text)

    # ------------------------------------------------------------ the steps
    def _check_records(self, text: str) -> None:
        if text.count("\n") > self.max_records + 2:  # else it cannot hold more records
            limits.check_records(text, max_records=self.max_records)

    def _envelope(self, text: str) -> Envelope:
        self._check_records(text)
        envelope = self.split(text)
        if envelope is None:
            raise reference.syntax_error(text, self.literals, "legacy") or DecodeError(
                "malformed summary envelope", text, 0, (), DecodeReason.SYNTAX)
        return envelope

    def _read(self, text: str, engine: Engine) -> _Reading:
        """Steps 3 to 5 on the lines of the fast tokenizer or of the Lark reference."""
        check_engine(engine)
        tokens: dict[int, Line] | None = None
        if engine == "lark":
            self._check_records(text)
            envelope, tokens = reference.legacy_lines(text, self.literals)
        else:
            envelope = self._envelope(text)
        recoveries = new_recoveries(text)
        if envelope.legacy_preamble:
            recoveries.add(1, Code.LEGACY_PREAMBLE)
        if envelope.empty:
            return _Reading([], recoveries, candidates(0), ())
        try:
            return self._records(text, envelope, recoveries, tokens)
        except ReadFailure as failure:
            raise failure.at(text) from None

    def _records(self, text: str, envelope: Envelope, recoveries: Any,
                 tokens: dict[int, Line] | None) -> _Reading:
        lines = evidence.Numbered(text, envelope.begin, envelope.stop, tokens)
        if not len(lines) or lines.starts[0] != envelope.begin:
            raise DecodeError("text before the first record", text, envelope.begin,
                              ("record 1",), DecodeReason.NUMBERING)
        numbering = evidence.numbering(lines, self.start, self.end, self.max_depth)
        records = RecordReader(lines, recoveries, self.max_depth)
        items = records.read(numbering, envelope.first_line)
        writers = numbering.writers
        if writers is None:  # the numbering did not depend on them: the records say
            writers = candidates(records.signs)
        listed = records.settle_lists(any(writer.lists_after_colon for writer in writers))
        found: list[Candidate] = []
        if len(numbering.doubtful):
            as_numbered = evidence.every_line(lines, numbering.inside, writers)
            found.append(Candidate(
                reading="every numbered line a record, as an edited summary would be",
                items=lambda: RecordReader(lines, new_recoveries(text), self.max_depth).read(
                    as_numbered, envelope.first_line)))
        if listed:
            found.append(Candidate(
                reading="JSON arrays of content parts as list content, as openai-agents 0.6 "
                        "to 0.17.0 wrote it", items=_with_lists(items, listed)))
        return _Reading(items, recoveries, writers, tuple(found))

    def _strict_read(self, text: str) -> list[Item]:
        """A strict read line by line, for the text the one pass gave up on: the items, or the
        parser's syntax error first, then the first record out of sequence or not an RFC
        8259 JSON object within ``max_depth``."""
        envelope = self.split(text)
        syntax = reference.syntax_error(text, self.literals, "summary")
        if syntax is not None or envelope is None or envelope.legacy_preamble:
            raise syntax or DecodeError("malformed summary", text, 0, (), DecodeReason.SYNTAX)
        if envelope.empty:
            return []
        items: list[Item] = []
        for count, match in enumerate(line_pattern().finditer(text, envelope.begin,
                                                              envelope.stop), 1):
            line: Line = match.groups("")  # type: ignore[assignment]
            if line[0] != str(count):
                raise DecodeError(f"record number {line[0]!r} out of sequence", text,
                                  match.start(), (f"record {count}",), DecodeReason.NUMBERING)
            if line[3]:  # JSON_LINE (the parser read every line as a record)
                try:
                    items.append(json_object(line[3], match.start(4), self.max_depth))
                except ReadFailure as failure:
                    raise failure.at(text) from None
            else:
                role, name, content = (line[1], "", line[2]) if line[1] else line[4:7]
                role = SHARED_ROLES.get(role, role)
                items.append({"role": role, "content": content} if not name
                             else {"role": role, "name": name, "content": content})
        return items


def _with_lists(items: list[Item], listed: list[tuple[int, list[Any]]]) -> list[Item]:
    """A copy of ``items`` with the content of each listed item replaced by its list."""
    import copy

    copied = copy.deepcopy(items)
    for index, parts in listed:
        copied[index]["content"] = parts
    return copied


# Each record number as text, for the one pass to compare with: grown to the
# longest body it has read (at most ``max_records`` strings).
_NUMBERS = ["0"]


def _current_pass(preamble: str, start: str, end: str, max_depth: int,
                  max_records: int) -> Callable[[str, bool], list[Item] | None]:
    """The one-pass reading of a current-format summary: the envelope compared as strings,
    then a body of current-format records numbered 1, 2, 3, ...

    ``current(text, strict)`` gives the items, or None for any text that leaves
    something to decide (the steps then read it, or say why not): another
    envelope, a line that is no ``KNOWN_LINE``, ``JSON_LINE`` or
    ``PLAIN_LINE``, a number out of sequence, a JSON record that is not a whole
    RFC 8259 object within ``max_depth``, more than ``max_records`` records.
    Leniently also a role that is not a known one (a `type: {json}` record, or
    a name that holds ":" or "(") or content that starts with "[" (it may be
    list content).

    One ``findall`` of :func:`~.lines.usual_pattern` reads the usual lines
    (``KNOWN_LINE`` and ``JSON_LINE``); any other line is matched with
    ``PLAIN_LINE`` itself.
    """
    head, tail = f"{preamble}\n{start}\n", "\n" + end
    signed, _ = grammar.signature_parts()
    signature = grammar.terminal("_SIGNATURE").match
    empty = grammar.literal("EMPTY_TRANSCRIPT") + "\n"
    findall = usual_pattern().findall
    plain = grammar.terminal("PLAIN_LINE", "legacy").fullmatch
    scan = strict_scanner()
    roles = dict(SHARED_ROLES)
    shared = roles.get
    deep = 2 * max_depth + 1  # JSON this long may nest deeper than max_depth
    chunk, numbers = _CHUNK, _NUMBERS

    def current(text: str, strict: bool) -> list[Item] | None:
        if not text.startswith(head):
            return None
        pos = len(head)
        if text.startswith(signed, pos):
            match = signature(text, pos)
            if match is not None:
                pos = match.end()
        stop = len(text) - len(tail) + 1  # just after the line break before the end marker
        if stop <= pos or not text.endswith(tail):
            return None
        if text.startswith(empty, pos):
            return [] if stop == pos + len(empty) else None
        items: list[Item] = []
        append = items.append
        count = 0
        while pos < stop:
            cut = text.find("\n", pos + chunk, stop) + 1 or stop
            found = findall(text, pos, cut)
            if count + len(found) >= len(numbers):
                if count + len(found) > max_records:
                    return None  # the steps check the limit, and say so
                numbers.extend(map(str, range(len(numbers), count + len(found) + 1)))
            elif count + len(found) > max_records:
                return None
            for number, role, content, source, line in found:
                count += 1
                if role:  # KNOWN_LINE
                    if number != numbers[count]:
                        return None
                    append({"role": roles[role], "content": content})
                elif source:  # JSON_LINE
                    if number != numbers[count]:
                        return None
                    if len(source) > deep and source.count("{") + source.count("[") > max_depth \
                            and depth_exceeded_at(source, max_depth) is not None:
                        return None
                    try:
                        value, at = scan(source, 0)
                    except (StopIteration, ValueError, RecursionError):
                        return None
                    if at != len(source) or type(value) is not dict:
                        return None
                    append(value)
                else:  # PLAIN_LINE, or no current record
                    fields = plain(line + "\n")
                    if fields is None or fields["plain_n"] != numbers[count]:
                        return None
                    role, name, content = fields.group("plain_role", "plain_name",
                                                       "plain_content")
                    if not strict and (role not in roles or content[:1] == "["):
                        return None
                    role = shared(role, role)
                    append({"role": role, "content": content} if name is None
                           else {"role": role, "name": name, "content": content})
            pos = cut
        return items

    return current


@functools.cache
def reader(literals: Literals, max_depth: int, max_records: int) -> Reader:
    """The reader of one configuration, built once."""
    return Reader(literals, max_depth, max_records)

