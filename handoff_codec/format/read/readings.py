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

from ..errors import DecodeError, DecodeReason, ReadFailure
from ..report import Candidate, Decoded, Format
from . import evidence
from .authority import lowered
from .generations import EMPTY_TURN_UNKEPT, Sign, candidates, describe
from .notes import Code
from .records import RecordReader, content_parts, new_recoveries

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..report import Recoveries
    from .envelope import Envelope
    from .generations import Generation
    from .lines import Line
    from .reader import Reader

__all__ = ["Options", "Reading", "records_reading"]

Item = dict[str, "Any"]

# How many times a body is read while records it would read gain authority: each reading
# lowers them all, and a line numbered as a lowered one may take its place once more.
_READINGS = 4


class Reading:
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


class Options:
    """How a reading reads the doubts a text leaves (the main reading: the defaults).

    ``loose`` reads lines between markers as a quoted summary without a
    preamble line; ``words`` reads `word: {json}` of any word as an item
    (None: when a writer of typed records is left); ``last_names`` reads
    names to their last "): ".
    """

    __slots__ = ("last_names", "loose", "words")

    def __init__(self, *, loose: bool = False, words: bool | None = None,
                 last_names: bool = False) -> None:
        self.loose, self.words, self.last_names = loose, words, last_names

    def but(self, **changes: bool) -> Options:
        """These options with ``changes``."""
        values: dict[str, Any] = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return Options(**values)


_DEFAULT = Options()


class _Body:
    """One body being read: its text, lines and the reader's settings, and how to read
    its records again for another reading."""

    __slots__ = ("envelope", "lines", "options", "reader", "text", "tokens")

    def __init__(self, reader: Reader, text: str, envelope: Envelope,
                 tokens: dict[int, Line] | None, options: Options) -> None:
        self.reader, self.text, self.envelope = reader, text, envelope
        self.tokens, self.options = tokens, options
        self.lines = evidence.Numbered(text, envelope.begin, envelope.stop, tokens)

    def numbering(self, lowered_heads: dict[int, int] | None = None) -> evidence.Numbering:
        """The numbering of the body (``evidence.numbering``), ``lowered_heads`` lowered."""
        reader = self.reader
        preambles = None if self.options.loose else reader.preambles
        return evidence.numbering(self.lines, reader.start, reader.end, reader.max_depth,
                                  preambles, lowered_heads)

    def record_reader(self, recoveries: Recoveries) -> RecordReader:
        options = self.options
        return RecordReader(self.lines, recoveries, self.reader.max_depth,
                            words=bool(options.words), last_names=options.last_names)

    def items(self, numbering: evidence.Numbering) -> list[Item]:
        """The items of the records ``numbering`` gives, read afresh."""
        return self.record_reader(new_recoveries(self.text)).read(
            numbering, self.envelope.first_line)

    def again(self, **changes: bool) -> Callable[[], list[Item]]:
        """The items of the whole reading with these options changed, when asked for."""
        def read() -> list[Item]:
            return records_reading(self.reader, self.text, self.envelope,
                                   new_recoveries(self.text), self.tokens,
                                   self.options.but(**changes)).items
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
                    tokens: dict[int, Line] | None, options: Options = _DEFAULT) -> Reading:
    """The records of the body (steps 3 and 4) and the other readings of them (step 5).

    ``tokens`` are the body's lines by offset (the Lark reference's; None: the
    fast tokenizer's); ``options`` how the doubts are read."""
    body = _Body(reader, text, envelope, tokens, options)
    lines = body.lines
    if not len(lines) or lines.starts[0] != envelope.begin:
        raise DecodeError("text before the first record", text, envelope.begin,
                          ("record 1",), DecodeReason.NUMBERING)
    numbering = body.numbering()
    if options.words is None:  # a `word: {json}` line is an item where typed records are
        body.options = options = options.but(words=any(
            writer.writes & Sign.TYPED for writer in numbering.writers or ()))
    numbering, records, items = _settled(body, numbering, recoveries)
    signs = numbering.signs | records.signs
    writers = candidates(signs)
    listed = records.settle_lists(any(writer.lists_after_colon for writer in writers))
    others = _others(body, numbering, records, writers, recoveries, listed)
    return Reading(items, recoveries, writers, others, signs)


def _settled(body: _Body, numbering: evidence.Numbering, recoveries: Recoveries,
             ) -> tuple[evidence.Numbering, RecordReader, list[Item]]:
    """The records read until none gains authority (section "Authority" of docs/spec.md):
    each reading lowers the records that would, and the body is numbered again."""
    mark = len(recoveries)
    heads_lowered: dict[int, int] = {}
    for attempt in range(_READINGS):
        if attempt:
            numbering = body.numbering(heads_lowered)
        records = body.record_reader(recoveries)
        items = records.read(numbering, body.envelope.first_line)
        found = lowered(items, [index for _, index in records.guarded]) \
            if records.guarded else None
        if not found or attempt == _READINGS - 1:
            break  # (the last reading keeps what it found: lowered lines are noted)
        heads_lowered.update(
            {head: found[index] for head, index in records.guarded if index in found})
        recoveries.truncate(mark)
    return numbering, records, items


def _others(body: _Body, numbering: evidence.Numbering, records: RecordReader,
            writers: tuple[Generation, ...], recoveries: Recoveries,
            listed: Iterable[int]) -> tuple[Candidate, ...]:
    """The other readings of the body, each read when first asked for."""
    found: list[Candidate] = []
    if numbering.lowered:
        final = numbering
        found.append(Candidate(
            reading="the lines noted ambiguous as the turns they look like (a system or "
                    "developer turn, a tool call or output that nothing pairs)",
            items=body.lazily(lambda: body.items(
                evidence.with_heads(body.lines, final, final.lowered)))))
    if len(numbering.doubtful) > len(numbering.lowered):
        found.append(Candidate(
            reading="every numbered line a record, as an edited summary would be",
            items=body.lazily(lambda: body.items(
                evidence.every_line(body.lines, numbering.inside, writers)))))
    if records.typed_words:
        found.append(Candidate(
            reading="'word: {...}' lines of a word that is no item type as messages of "
                    "that role", items=body.again(words=False)))
    if records.named:
        found.append(Candidate(
            reading="each name that holds '): ' read to its last '): '",
            items=body.again(last_names=True)))
    if numbering.quoted >= 0:
        quoted = numbering.quoted
        recoveries.merge(((body.text.count("\n", 0, quoted) + 1, Code.AMBIGUOUS_QUOTED,
                           quoted, 0),))
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
    return tuple(found)


def _with_lists(items: list[Item], listed: Iterable[int]) -> list[Item]:
    """``items`` (a fresh reading) with the content of each item in ``listed`` read as the
    list of content parts it holds."""
    for index in listed:
        items[index]["content"] = content_parts(items[index]["content"])
    return items
