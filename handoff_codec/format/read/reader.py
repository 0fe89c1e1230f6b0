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
the same pass, and an error where it stops; a line break or NUL inside a
record is refused at its place (``raw_breaks.py``).
"""

from __future__ import annotations

import functools
import warnings

from .. import grammar, limits
from ..errors import DecodeError, DecodeReason, LossWarning, ReadFailure
from ..report import Candidate, Decoded, Format, RecoveryKind
from . import evidence, reference
from .authority import lowered
from .envelope import Envelope, splitter
from .generations import EMPTY_TURN_UNKEPT, Sign, candidates, describe
from .json_record import json_object
from .lines import (
    JSON_OBJECT,
    KNOWN_CONTENT,
    KNOWN_ROLE,
    NUMBER,
    PLAIN_CONTENT,
    PLAIN_ROLE,
    line_pattern,
)
from .notes import Code
from .one_pass import one_pass
from .raw_breaks import first_raw_break, refusal
from .records import RecordReader, content_parts, new_recoveries
from .vocabulary import SHARED_ROLES

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, Literal

    from .lines import Line

    Engine = Literal["fast", "lark"]

__all__ = ["Reader", "check_engine", "reader"]

Item = dict[str, "Any"]
Literals = tuple[tuple[str, str], ...]

# How many times a body is read while records it would read gain authority: each reading
# lowers them all, and a line numbered as a lowered one may take its place once more.
_READINGS = 4

# How many characters of whole lines one findall reads: its list of lines stays
# small (a few hundred), which a long transcript reads faster.
_CHUNK = 16_384


def check_engine(engine: str) -> None:
    """ValueError for an engine that is neither ``"fast"`` nor ``"lark"``."""
    if engine not in ("fast", "lark"):
        raise ValueError(f"engine must be 'fast' or 'lark', not {engine!r}")


class _Reading:
    """What steps 3 to 5 found: the items and what the report says of them."""

    __slots__ = ("candidates", "items", "recoveries", "signs", "writers")

    def __init__(self, items: list[Item], recoveries: Any, writers: tuple[Any, ...],
                 candidates: tuple[Candidate, ...], signs: int = 0) -> None:
        self.items, self.recoveries = items, recoveries
        self.writers, self.candidates, self.signs = writers, candidates, signs

    def decoded(self) -> Decoded:
        empty_turns = (EMPTY_TURN_UNKEPT,) if self.signs & Sign.EMPTY_TURN else ()
        if not len(self.recoveries) and not empty_turns:
            return Decoded(items=self.items, format=Format.CURRENT, recoveries=self.recoveries,
                           unkept=empty_turns, candidates=self.candidates)
        form, writers, unkept = describe(self.writers)
        return Decoded(items=self.items, format=form, recoveries=self.recoveries,
                       writers=writers, unkept=unkept + empty_turns,
                       candidates=self.candidates)


class Reader:
    """The readings of one codec configuration: envelope, limits and JSON depth."""

    __slots__ = ("end", "literals", "max_depth", "max_records", "one_pass", "preambles", "split",
                 "start")

    def __init__(self, literals: Literals, max_depth: int, max_records: int) -> None:
        values = dict(literals)
        self.literals, self.max_depth, self.max_records = literals, max_depth, max_records
        self.start, self.end = values["START_MARKER"], values["END_MARKER"]
        self.split = splitter(values["PREAMBLE"], self.start, self.end)
        # The line before a summary quoted in content ends with one of these.
        self.preambles = (values["PREAMBLE"], grammar.literal("LEGACY_PREAMBLE", "legacy"))
        self.one_pass = one_pass(values["PREAMBLE"], grammar.literal("LEGACY_PREAMBLE", "legacy"),
                                 self.start, self.end, max_depth, max_records)

    # ------------------------------------------------------------ the entry points
    def items(self, text: str, engine: Engine = "fast") -> list[Item]:
        """The items of the lenient reading (``loads``) of a text the one pass gave up on;
        a :class:`LossWarning` when it lost something but an empty turn's None."""
        reading = self._read(text, engine)
        recoveries = reading.recoveries
        if recoveries.any_lost():
            lost = [r for r in recoveries if r.lost and r.kind is not RecoveryKind.BARE_ROLE]
            if lost:
                warnings.warn(LossWarning(
                    f"the summary was read with {len(lost)} loss(es), the first on line "
                    f"{lost[0].line} ({lost[0].kind.value}); decode() reports each, with the "
                    "other readings"), stacklevel=3)
        return reading.items

    def decode(self, text: str, engine: Engine = "fast") -> Decoded:
        """The lenient reading with its report (``decode``)."""
        if engine == "fast":
            notes = new_recoveries(text)
            read = self.one_pass(text, False, notes)
            if read is not None:
                return _Reading(read[0], notes, candidates(read[1]), (), read[1]).decoded()
        return self._read(text, engine).decoded()

    def strict(self, text: str, engine: Engine = "fast") -> list[Item]:
        """The items of a current-format summary (``loads(strict=True)``) the one pass gave
        up on; DecodeError when it is not one."""
        self._check_records(text)
        self._refuse_raw_breaks(text)
        if engine == "lark":
            return reference.strict_items(text, self.literals, self.max_depth)
        return self._strict_read(text)

    def _refuse_raw_breaks(self, text: str) -> None:
        """A strict read's DecodeError at a line break or NUL inside a record (both
        engines), unless the parser finds a problem on an earlier line."""
        envelope = self.split(text)
        if envelope is None:
            return  # the parser says what is wrong
        pos = first_raw_break(text, envelope.begin, envelope.stop)
        if pos is None:
            return
        syntax = reference.syntax_error(text, self.literals, "summary")
        if syntax is not None and syntax.pos <= text.rfind("\n", 0, pos):
            raise syntax
        raise refusal(text, pos)

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
                 tokens: dict[int, Line] | None, *, loose: bool = False,
                 words: bool | None = None, last_names: bool = False) -> _Reading:
        """The records of the body (steps 3 and 4) and the other readings of them.

        ``loose`` reads lines between markers as a quoted summary without a preamble
        line; ``words`` reads `word: {json}` of any word as an item (None: when a writer
        of typed records is left); ``last_names`` reads names to their last "): "."""
        lines = evidence.Numbered(text, envelope.begin, envelope.stop, tokens)
        if not len(lines) or lines.starts[0] != envelope.begin:
            raise DecodeError("text before the first record", text, envelope.begin,
                              ("record 1",), DecodeReason.NUMBERING)
        preambles = None if loose else self.preambles
        first_line, max_depth = envelope.first_line, self.max_depth
        mark = len(recoveries)
        heads_lowered: dict[int, int] = {}
        numbering = evidence.numbering(lines, self.start, self.end, max_depth, preambles)
        typed = any(writer.writes & Sign.TYPED for writer in numbering.writers or ()) \
            if words is None else words
        for attempt in range(_READINGS):  # again while a record would gain authority
            if attempt:
                numbering = evidence.numbering(lines, self.start, self.end, max_depth,
                                               preambles, heads_lowered)
            records = RecordReader(lines, recoveries, max_depth, words=typed,
                                   last_names=last_names)
            items = records.read(numbering, first_line)
            found = lowered(items, [index for _, index in records.guarded]) \
                if records.guarded else None
            if not found or attempt == _READINGS - 1:
                break  # (the last reading keeps what it found: lowered lines are noted)
            heads_lowered.update(
                {head: found[index] for head, index in records.guarded if index in found})
            recoveries.truncate(mark)
        signs = numbering.signs | records.signs
        writers = candidates(signs)
        listed = records.settle_lists(any(writer.lists_after_colon for writer in writers))
        found_readings: list[Candidate] = []

        def again(**options: bool) -> Callable[[], list[Item]]:
            def read() -> list[Item]:
                try:
                    return self._records(text, envelope, new_recoveries(text), tokens,
                                         **{"loose": loose, "words": typed,
                                            "last_names": last_names, **options}).items
                except ReadFailure as failure:
                    raise failure.at(text) from None
            return read

        if numbering.lowered:
            final = numbering

            def as_records() -> list[Item]:
                try:
                    return RecordReader(lines, new_recoveries(text), max_depth, words=typed,
                                        last_names=last_names).read(
                        evidence.with_heads(lines, final, final.lowered), first_line)
                except ReadFailure as failure:
                    raise failure.at(text) from None

            found_readings.append(Candidate(
                reading="the lines noted ambiguous as the turns they look like (a system or "
                        "developer turn, a tool call or output that nothing pairs)",
                items=as_records))
        if len(numbering.doubtful) > len(numbering.lowered):
            # The other reading is read when first asked for: a long summary's costs
            # nothing until then.
            def as_numbered() -> list[Item]:
                try:
                    return RecordReader(lines, new_recoveries(text), max_depth,
                                        words=typed, last_names=last_names).read(
                        evidence.every_line(lines, numbering.inside, writers), first_line)
                except ReadFailure as failure:
                    raise failure.at(text) from None

            found_readings.append(Candidate(
                reading="every numbered line a record, as an edited summary would be",
                items=as_numbered))
        if records.typed_words:
            found_readings.append(Candidate(
                reading="'word: {...}' lines of a word that is no item type as messages of "
                        "that role", items=again(words=False)))
        if records.named:
            found_readings.append(Candidate(
                reading="each name that holds '): ' read to its last '): '",
                items=again(last_names=True)))
        if numbering.quoted >= 0:
            quoted = numbering.quoted
            recoveries.merge(((text.count("\n", 0, quoted) + 1, Code.AMBIGUOUS_QUOTED,
                               quoted, 0),))
            found_readings.append(Candidate(
                reading="lines between a start and an end marker line as a summary quoted "
                        "in content, though no preamble line comes before it",
                items=again(loose=True)))
        if listed:
            found_readings.append(Candidate(
                reading="JSON arrays of content parts as list content, as openai-agents 0.6 "
                        "to 0.17.0 wrote it",
                items=lambda: _with_lists(self._read(text, "fast").items, listed)))
        return _Reading(items, recoveries, writers, tuple(found_readings), signs)

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
            if line[JSON_OBJECT]:  # JSON_LINE (the parser read every line as a record)
                try:
                    items.append(json_object(line[JSON_OBJECT], match.start(4), self.max_depth))
                except ReadFailure as failure:
                    raise failure.at(text) from None
            if line[NUMBER] != str(count):
                raise DecodeError(f"record number {line[NUMBER]!r} out of sequence", text,
                                  match.start(), (f"record {count}",), DecodeReason.NUMBERING)
            if not line[JSON_OBJECT]:
                role, name, content = (line[KNOWN_ROLE], "", line[KNOWN_CONTENT]) \
                    if line[KNOWN_ROLE] else line[PLAIN_ROLE:PLAIN_CONTENT + 1]
                role = SHARED_ROLES.get(role, role)
                items.append({"role": role, "content": content} if not name
                             else {"role": role, "name": name, "content": content})
        return items


def _with_lists(items: list[Item], listed: Iterable[int]) -> list[Item]:
    """``items`` (a fresh reading) with the content of each item in ``listed`` read as the
    list of content parts it holds."""
    for index in listed:
        items[index]["content"] = content_parts(items[index]["content"])
    return items


@functools.cache
def reader(literals: Literals, max_depth: int, max_records: int) -> Reader:
    """The reader of one configuration, built once."""
    return Reader(literals, max_depth, max_records)

