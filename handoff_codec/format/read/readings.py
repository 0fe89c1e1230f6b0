"""Steps 3 to 5 of a read: the records of a body, and the other readings the text allows.

:func:`records_reading` takes a body's numbered lines through the writer
evidence and the numbering (``evidence.py``), the records (``records.py``)
and authority (``authority.py``), and gives a :class:`Reading`: the items,
the recoveries, the writers left, and the other readings (``candidates``).

Each other reading is a :class:`~..report.Candidate` whose items are read
when first asked for: a decode that never looks at them costs nothing more
than building a few closures. A reading differs from the main one by its
:class:`Options` (how it reads the doubts a text leaves), or by the records
it reads from the same numbering.
"""

from __future__ import annotations

import bisect

from ..errors import DecodeError, DecodeReason, ReadFailure
from ..report import Candidate, Decoded, Format
from . import evidence
from .authority import lowered
from .generations import EMPTY_TURN_UNKEPT, Form, candidates, describe, raw_possible
from .notes import Code
from .raw_readings import items as raw_items
from .raw_readings import raw_readings
from .records import Names, RecordReader, content_parts, new_recoveries

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..report import Recoveries
    from .envelope import Envelope
    from .generations import Generation
    from .lines import Line
    from .reader import Reader

__all__ = ["Options", "Reading", "as_written", "records_reading", "then_as_written"]

Item = dict[str, "Any"]

# How many times a body is read while records it would read gain authority: each reading
# lowers them all, and a line numbered as a lowered one may take its place once more.
_READINGS = 4


class Reading:
    """What steps 3 to 5 found: the items and what the report says of them."""

    __slots__ = ("candidates", "forms", "items", "recoveries", "writers")

    def __init__(self, items: list[Item], recoveries: Any, writers: tuple[Any, ...],
                 candidates: tuple[Candidate, ...] | Callable[[], tuple[Candidate, ...]],
                 forms: int = 0) -> None:
        self.items, self.recoveries = items, recoveries
        self.writers, self.candidates, self.forms = writers, candidates, forms

    def decoded(self) -> Decoded:
        empty_turns = (EMPTY_TURN_UNKEPT,) if self.forms & Form.EMPTY_TURN else ()
        if not len(self.recoveries) and not empty_turns:
            return Decoded(items=self.items, format=Format.CURRENT, recoveries=self.recoveries,
                           unkept=empty_turns, candidates=self.candidates)
        form, writers, unkept = describe(self.writers)
        return Decoded(items=self.items, format=form, recoveries=self.recoveries,
                       writers=writers, unkept=unkept + empty_turns,
                       candidates=self.candidates)


class Options:
    """How a reading reads the doubts a text leaves (the main reading: the defaults).

    ``loose`` reads lines between markers as a quoted summary without a
    preamble line; ``words`` reads `word: {json}` of any word as an item
    (None: when a writer of typed records is left); ``names`` where a name
    that holds "): " ends (:class:`~.records.Names`); ``bare`` the lines
    `N. role (a): b)` (indexes of numbered lines) read as an empty turn named
    `a): b`. ``raised`` reads every line of the writers' vocabulary in the run
    as a record, however much authority it gains (as the body is first
    numbered); ``lifted`` the lines the reading lowered (:mod:`.authority`) as
    the records they look like; ``kept`` the lines (indexes of numbered lines)
    that are never lowered. ``raw`` reads the text as a writer of raw content
    wrote it, of lines numbered alike the last a record (``earliest``: the
    first; :class:`~.evidence.Way`).
    """

    __slots__ = ("bare", "earliest", "kept", "lifted", "loose", "names", "raised", "raw",
                 "words")
    # (_OPTION_FIELDS below names them again: a class mypyc compiles has no __slots__.)

    def __init__(self, *, loose: bool = False, words: bool | None = None, names: int = 0,
                 bare: frozenset[int] = frozenset(), raised: bool = False,
                 lifted: bool = False, kept: frozenset[int] = frozenset(), raw: bool = False,
                 earliest: bool = False) -> None:
        self.loose, self.words, self.names, self.bare = loose, words, names, bare
        self.raised, self.lifted, self.kept = raised, lifted, kept
        self.raw, self.earliest = raw, earliest

    def but(self, **changes: Any) -> Options:
        """These options with ``changes``."""
        values: dict[str, Any] = {name: getattr(self, name) for name in _OPTION_FIELDS}
        values.update(changes)
        return Options(**values)

    def way(self) -> evidence.Way:
        """How the numbering reads the lines."""
        if not self.raw and not self.bare:
            return evidence.MAIN
        return evidence.Way(raw=self.raw, bare=self.bare, earliest=self.earliest)


_OPTION_FIELDS = ("bare", "earliest", "kept", "lifted", "loose", "names", "raised", "raw",
                  "words")
_DEFAULT = Options()


class _Body:
    """One body being read: its text, lines and the reader's settings, and how to read
    its records again for another reading."""

    __slots__ = ("envelope", "lines", "options", "reader", "text", "tokens", "words")

    def __init__(self, reader: Reader, text: str, envelope: Envelope,
                 tokens: dict[int, Line] | None, options: Options) -> None:
        self.reader, self.text, self.envelope = reader, text, envelope
        self.tokens, self.options = tokens, options
        self.lines = evidence.Numbered(text, envelope.begin, envelope.stop, tokens)
        self.words = bool(options.words)  # (None: settled by the first numbering)

    def numbering(self, lowered_heads: dict[int, int] | None = None) -> evidence.Numbering:
        """The numbering of the body (``evidence.numbering``), ``lowered_heads`` lowered."""
        reader, options = self.reader, self.options
        preambles = None if options.loose else reader.preambles
        return evidence.numbering(self.lines, reader.start, reader.end, reader.max_depth,
                                  preambles, lowered_heads, options.way())

    def record_reader(self, recoveries: Recoveries) -> RecordReader:
        options = self.options
        return RecordReader(self.lines, recoveries, self.reader.max_depth,
                            words=self.words, names=options.names, bare=options.bare)

    def items(self, numbering: evidence.Numbering) -> list[Item]:
        """The items of the records ``numbering`` gives, read afresh."""
        return self.record_reader(new_recoveries(self.text)).read(
            numbering, self.envelope.first_line)

    def again(self, **changes: Any) -> Callable[[], list[Item]]:
        """The items of the whole reading with these options changed, when asked for."""
        def read() -> list[Item]:
            return records_reading(self.reader, self.text, self.envelope,
                                   new_recoveries(self.text), self.tokens,
                                   self.options.but(**{"words": self.words, **changes}),
                                   offer=False).items
        return self.lazily(read)

    def lazily(self, read: Callable[[], list[Item]]) -> Callable[[], list[Item]]:
        """``read``, its failure raised as the DecodeError of this text."""
        def items() -> list[Item]:
            try:
                return read()
            except ReadFailure as failure:
                raise failure.at(self.text) from None
        return items


def records_reading(reader: Reader, text: str, envelope: Envelope, recoveries: Recoveries,
                    tokens: dict[int, Line] | None, options: Options = _DEFAULT,
                    offer: bool = True) -> Reading:
    """The records of the body (steps 3 and 4) and, if ``offer``, the other readings of
    them (step 5: a report's candidates).

    ``tokens`` are the body's lines by offset (the Lark reference's; None: the
    fast tokenizer's); ``options`` how the doubts are read."""
    body = _Body(reader, text, envelope, tokens, options)
    lines = body.lines
    if not len(lines) or lines.starts[0] != envelope.begin:
        raise DecodeError("text before the first record", text, envelope.begin,
                          ("record 1",), DecodeReason.NUMBERING)
    numbering = body.numbering()
    if options.words is None:  # a `word: {json}` line is an item where typed records are
        body.words = any(writer.writes & Form.TYPED for writer in numbering.writers or ())
    first = numbering
    numbering, records, items = _settled(body, numbering, recoveries)
    forms = numbering.forms | records.forms
    writers = candidates(forms)
    listed = records.settle_lists(any(writer.lists_after_colon for writer in writers))
    if numbering.quoted >= 0:
        recoveries.merge(((text.count("\n", 0, numbering.quoted) + 1, Code.AMBIGUOUS_QUOTED,
                           numbering.quoted, 0),))
    if not offer:
        return Reading(items, recoveries, writers, (), forms)
    others = _others(body, first, numbering, records, writers, recoveries, listed)
    if options is _DEFAULT and recoveries.any_lost():
        return Reading(items, recoveries, writers,
                       then_as_written(others, text, envelope, reader.max_depth, items), forms)
    return Reading(items, recoveries, writers, others, forms)


# At most this many readings as the raw writer wrote the body (the likeliest first).
_AS_WRITTEN = 16
_ORDINALS = {1: "", 2: "2nd ", 3: "3rd "}


def then_as_written(others: tuple[Candidate, ...], text: str, envelope: Envelope,
                    max_depth: int, main: list[Item]) -> Callable[[], tuple[Candidate, ...]]:
    """``others``, then the readings :func:`as_written`, found when first asked for (a
    read that never asks costs nothing more)."""
    return lambda: (*others, *as_written(text, envelope, max_depth, main))


def as_written(text: str, envelope: Envelope, max_depth: int, main: list[Item],
               ) -> tuple[Candidate, ...]:
    """The likeliest readings of a flagged body as openai-agents 0.6 to 0.17.0 wrote it
    (:mod:`.raw_readings`): records numbered 1, 2, 3 in order, each a line of its
    vocabulary, whatever the evidence says of the writer; but ``main``, the reading
    (called when the candidates are first asked for: see :func:`then_as_written`)."""
    begin, stop = envelope.begin, envelope.stop
    found = [(reading.cost, items) for reading in raw_readings(
        text, begin, stop, _AS_WRITTEN + 1, max_depth)
        if (items := raw_items(text, begin, stop, reading, max_depth)) != main]
    return tuple(Candidate(
        reading="as openai-agents 0.6 to 0.17.0 wrote it, its records numbered 1, 2, 3 in "
                f"order: the {_ORDINALS.get(rank, f'{rank}th ')}likeliest such reading "
                f"(cost {cost}: each line that could start the next record read as "
                "content, each name holding a line break or read to a later '): ', costs 1)",
        items=items) for rank, (cost, items) in enumerate(found[:_AS_WRITTEN], 1))


def _settled(body: _Body, numbering: evidence.Numbering, recoveries: Recoveries,
             ) -> tuple[evidence.Numbering, RecordReader, list[Item]]:
    """The records read until none gains authority (section "Authority" of docs/spec.md):
    each reading lowers the records that would, and the body is numbered again."""
    mark = len(recoveries)
    heads_lowered: dict[int, int] = {}
    readings = 1 if body.options.raised else _READINGS
    for attempt in range(readings):
        if attempt:
            numbering = body.numbering(heads_lowered)
        records = body.record_reader(recoveries)
        items = records.read(numbering, body.envelope.first_line)
        if not records.guarded or attempt == readings - 1:
            break
        found = lowered(items, [index for _, index in records.guarded],
                        spilling=frozenset(records.spilling))
        rising = {head: found[index] for head, index in records.guarded
                  if index in found and head not in body.options.kept}
        if not rising:
            break  # (the last reading keeps what it found: lowered lines are noted)
        heads_lowered.update(rising)
        recoveries.truncate(mark)
    if body.options.lifted and numbering.lowered:  # the lines lowered as records after all
        recoveries.truncate(mark)
        numbering = evidence.with_heads(body.lines, numbering, numbering.lowered)
        records = body.record_reader(recoveries)
        items = records.read(numbering, body.envelope.first_line)
    return numbering, records, items


# At most this many readings that read one or two doubts otherwise (the likeliest first).
_COMBINED = 16


def _others(body: _Body, first: evidence.Numbering, numbering: evidence.Numbering,
            records: RecordReader, writers: tuple[Generation, ...], recoveries: Recoveries,
            listed: Iterable[int]) -> tuple[Candidate, ...]:
    """The other readings of the body (``first`` numbered as before authority, then
    ``numbering``), each read when first asked for."""
    if not (len(numbering.doubtful) or records.typed_words or records.named
            or len(numbering.bare_named) or numbering.quoted >= 0 or listed
            or len(numbering.opened) or len(numbering.renumbered)):
        return ()  # (the usual body: nothing doubtful)
    found: list[Candidate] = []
    if len(numbering.doubtful) > len(numbering.lowered):
        found.append(Candidate(
            reading="every numbered line a record, as an edited summary would be",
            items=body.lazily(lambda: body.items(
                evidence.every_line(body.lines, numbering.inside, writers)))))
    if records.typed_words:
        found.append(Candidate(
            reading="'word: {...}' lines of a word that is no item type as messages of "
                    "that role", items=body.again(words=False)))
    if numbering.quoted >= 0:  # (noted by records_reading)
        found.append(Candidate(
            reading="lines between a start and an end marker line as a summary quoted "
                    "in content, though no preamble line comes before it",
            items=body.again(loose=True)))
    if listed:
        every = body.again()
        found.append(Candidate(
            reading="JSON arrays of content parts as list content, as openai-agents 0.6 "
                    "to 0.17.0 wrote it",
            items=lambda: _with_lists(every(), listed)))
    doubts = [doubt for doubt in (
        _authority_doubts(first, numbering), _name_doubts(body, numbering, records),
        _raw_doubts(body, numbering, recoveries)) if doubt]
    combined = _combined(body, doubts)
    return (*combined[:1], *found, *combined[1:])


_AS_RECORDS = ("the lines noted ambiguous as the turns they look like (a system or developer "
               "turn, a tool call or output that nothing pairs)")

# One doubt: its other readings, each the options that read it so, in words, and how
# unlikely it is (1: the likeliest).
Doubt = list[tuple[dict[str, "Any"], str, int]]


def _combined(body: _Body, doubts: list[Doubt]) -> list[Candidate]:
    """A reading for each other reading of one of ``doubts``, and of two of them at once,
    the likeliest first, each once, at most ``_COMBINED``."""
    ways = [(options, words, cost) for doubt in doubts for options, words, cost in doubt]
    ways += [({**first, **second}, f"{words}; {more}", cost + extra)
             for at, doubt in enumerate(doubts) for other in doubts[at + 1:]
             for first, words, cost in doubt for second, more, extra in other]
    ways.sort(key=lambda way: way[2])
    seen: set[tuple[tuple[str, Any], ...]] = set()
    found: list[Candidate] = []
    for options, words, _ in ways:
        key = tuple(sorted(options.items()))
        if key not in seen:
            seen.add(key)
            found.append(Candidate(reading=words, items=body.again(**options)))
            if len(found) == _COMBINED:
                break
    return found


def _name_doubts(body: _Body, numbering: evidence.Numbering, records: RecordReader,
                 ) -> Doubt:
    """The other readings of names that hold '): ', and of `N. role (a): b)` as an empty
    turn named `a): b`: each such line, or all of them (or those whose name holds no
    other '): ', the others read to a later one). Such a line noted ambiguous is read so
    as the record it looks like."""
    text, starts = body.text, body.lines.starts
    splits, lowered_splits = records.splits, 0
    for index in numbering.lowered:  # (the records such a line would start)
        start = starts[index]
        lowered_splits = max(lowered_splits,
                             text.count("): ", start, text.find("\n", start)) - 1)
    last = "each name that holds '): ' read to its last '): '"
    second = "each name that holds '): ' read to its second '): '"
    lifted = {} if splits else {"lifted": True}
    splits = max(splits, lowered_splits)
    found: Doubt = []
    if splits:
        found.append(({"names": Names.LAST, **lifted}, last, 1))
    if splits > 1:
        found.append(({"names": Names.SECOND, **lifted}, second, 3))
    bare = sorted(set(numbering.bare_named))
    if not bare:
        return found
    lifted = {} if any(index not in numbering.lowered for index in bare) \
        else {"lifted": True}
    found.append(({"bare": frozenset(bare), **lifted},
                  "each line 'N. role (a): b)' an empty turn named 'a): b'", 1))
    if len(bare) > 1:
        found += [({"bare": frozenset((index,)), **lifted},
                   f"the line 'N. role (a): b)' numbered {body.lines.numbers[index]} an empty "
                   "turn named 'a): b'", 3) for index in bare[:_ONE_BY_ONE]]
    if splits:
        single = frozenset(index for index in bare if text.count(
            "): ", starts[index], text.find("\n", starts[index])) == 1)
        empty = "each other line 'N. role (a): b)' an empty turn named 'a): b'"
        found.append(({"names": Names.LAST, "bare": single, **lifted}, f"{last}, {empty}", 2))
        if splits > 1:
            found.append(({"names": Names.SECOND, "bare": single, **lifted},
                          f"{second}, {empty}", 4))
    return found


# The lines noted ambiguous (or 'N. role (a): b)') read otherwise one at a time, up to
# this many.
_ONE_BY_ONE = 2


def _authority_doubts(first: evidence.Numbering, numbering: evidence.Numbering) -> Doubt:
    """The other readings of the lines noted ambiguous, not to gain authority: all of
    them as the records they look like, or the first of them; or the records of the body
    as first numbered (``first``), when they are others."""
    heads = sorted(index for index, why in numbering.lowered.items()
                   if why != evidence.FORGED)
    if not heads:
        return []
    found: Doubt = [({"lifted": True}, _AS_RECORDS, 1)]
    if set(first.heads) != {*numbering.heads, *numbering.lowered}:
        found.append(({"raised": True}, "every line of the writers' vocabulary that follows "
                                        "the numbering a record, however much authority it "
                                        "gains", 2))
    found += [({"kept": frozenset(heads[:count])},
               f"the first {count} line(s) noted ambiguous as the turns they look like",
               2 + count) for count in range(1, min(len(heads), _ONE_BY_ONE + 1))]
    return found


def _raw_doubts(body: _Body, numbering: evidence.Numbering, recoveries: Recoveries,
                ) -> Doubt:
    """The reading of a writer of raw content, for a reading that is flagged, where one is
    left and may have written the body otherwise than the reading says: of lines
    numbered alike the last a record (its content comes before its next record), or the
    first; and either one however much authority its lines gain."""
    if body.options.raw or not recoveries.any_lost():
        return []
    differ = _raw_may_differ(body, numbering)
    if not differ:
        return []
    raw = ("as openai-agents 0.6 to 0.17.0 wrote it: each line of its vocabulary that "
           "follows the numbering a record, of lines numbered alike the last (its content "
           "comes before its next record), a line below 'N. role: ' content")
    gains = "however much authority it gains"
    rises = bool(numbering.lowered) or any(
        evidence.may_rise(body.lines.line(index)) for index in numbering.doubtful)
    found: Doubt = [({"raw": True}, raw, 1)]
    if rises:
        found.append(({"raw": True, "raised": True}, f"{raw}, {gains}", 2))
    if differ & _ALIKE and differ & (_RENUMBERED | _OPENED | _UNPROVEN):
        first = raw.replace("alike the last", "alike the first")
        found.append(({"raw": True, "earliest": True}, first, 3))
        if rises:
            found.append(({"raw": True, "earliest": True, "raised": True},
                          f"{first}, {gains}", 4))
    return found


# How a raw writer's reading may differ (flags).
_RENUMBERED, _ALIKE, _OPENED, _UNPROVEN = 1, 2, 4, 8


def _raw_may_differ(body: _Body, numbering: evidence.Numbering) -> int:
    """How the reading of a writer of raw content, if one is left, may differ (0: it
    does not): a record after the first is renumbered; a doubtful line is numbered as the
    record or the doubtful line next to it (the raw writer's record is the last of them);
    a line right below `N. role: ` is read as a record."""
    writers = numbering.writers
    if writers is not None and not raw_possible(writers):
        return 0
    lines, numbers, heads = body.lines, body.lines.numbers, numbering.heads
    found = 0
    if len(numbering.renumbered):  # after a record content may spill from
        spilling = next((head for head in heads if evidence.spills_at(
            lines, head, lines.line(head), body.reader.max_depth)), len(lines))
        found = _RENUMBERED if numbering.renumbered[-1] > spilling else 0
    if writers is None or any(writer.escapes_line_breaks for writer in writers):
        found |= _UNPROVEN
        for index in numbering.opened:  # read as a record
            at = bisect.bisect_left(heads, index)
            if at < len(heads) and heads[at] == index:
                found |= _OPENED
                break
    for index in numbering.doubtful:  # (of lines numbered alike, the reading took the first)
        if numbers[index] in numbers[max(0, index - _NEAR):index]:
            return found | _ALIKE
    return found & ~_UNPROVEN


# How many numbered lines above a doubtful one may be numbered as it is.
_NEAR = 8


def _with_lists(items: list[Item], listed: Iterable[int]) -> list[Item]:
    """``items`` (a fresh reading) with the content of each item in ``listed`` read as the
    list of content parts it holds."""
    for index in listed:
        items[index]["content"] = content_parts(items[index]["content"])
    return items
