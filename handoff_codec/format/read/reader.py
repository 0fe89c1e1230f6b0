"""The reading pipeline: envelope -> lines -> writer evidence -> records -> content -> report.

One :class:`Reader` per codec configuration (built once, cached), and one
entry point, :meth:`Reader.read`, for ``loads`` and ``decode``, strict or
not, with the engine chosen once (as the json module chooses its scanner):

* ``"fast"``: the one pass of ``fast.py`` reads the usual summary (a body
  numbered 1, 2, 3, ... whose lines leave nothing to decide); anything else
  takes the steps below, on the lines of ``lines.py``;
* ``"lark"``: the steps, always, on the LALR parser's tokens (``reference.py``).

The steps:

1. the envelope (``envelope.py``): where the body is;
2. the body's lines, each of one kind of ``grammar/legacy.lark``;
3. the writer evidence and the numbering (``evidence.py``): which writers the
   lines allow, which lines start records;
4. the records and their content (``records.py``);
5. the report (``Decoded``): the writer, the recoveries, the other readings.

``strict=True`` accepts only the current format (``grammar/summary.lark``):
the one pass, and the parser of that grammar for what it leaves, which says
where the text breaks it; a line break or NUL inside a record is refused at
its place (``raw_breaks.py``). Tests check on arbitrary text that both
engines agree.
"""

from __future__ import annotations

import functools
import warnings

from .. import grammar, limits
from ..errors import DecodeError, DecodeReason, LossWarning, ReadFailure
from ..report import Decoded, Format, RecoveryKind
from . import reference
from .envelope import Envelope, splitter
from .fast import FastEngine
from .generations import candidates
from .notes import Code
from .raw_breaks import first_raw_break, refusal
from .readings import Reading as _Reading
from .readings import records_reading
from .records import new_recoveries

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal, overload

    from ..report import Candidate, Recoveries
    from .fast import Read
    from .lines import Line

    Engine = Literal["fast", "lark"]
    # An engine's two parts: its one pass (None: leave the text to the steps), and the
    # envelope and the lines of the body for the steps (None: lines.py's tokenizer).
    OnePass = Callable[[str, bool, Recoveries | None], Read | None]
    Body = Callable[[str], tuple[Envelope, dict[int, Line] | None]]

__all__ = ["Reader", "reader"]

Item = dict[str, "Any"]
Literals = tuple[tuple[str, str], ...]

class Reader:
    """The readings of one codec configuration: envelope, limits and JSON depth."""

    __slots__ = ("end", "engines", "literals", "max_depth", "max_records", "preambles",
                 "split", "start")

    def __init__(self, literals: Literals, max_depth: int, max_records: int) -> None:
        values = dict(literals)
        self.literals, self.max_depth, self.max_records = literals, max_depth, max_records
        self.start, self.end = values["START_MARKER"], values["END_MARKER"]
        self.split = splitter(values["PREAMBLE"], self.start, self.end)
        legacy = grammar.literal("LEGACY_PREAMBLE", "legacy")
        # The line before a summary quoted in content ends with one of these.
        self.preambles = (values["PREAMBLE"], legacy)
        fast = FastEngine(values["PREAMBLE"], legacy, self.start, self.end, max_depth,
                          max_records)
        # Each engine, chosen once per read: its one pass and the lines of its steps.
        self.engines: dict[str, tuple[OnePass, Body]] = {
            "fast": (fast.read, self._envelope),
            "lark": (_no_pass, self._lark_lines),
        }

    if TYPE_CHECKING:
        @overload
        def read(self, text: str, *, strict: bool = ..., engine: Engine = ...,
                 report: Literal[False] = ...) -> list[Item]: ...

        @overload
        def read(self, text: str, *, strict: bool = ..., engine: Engine = ...,
                 report: Literal[True]) -> Decoded: ...

    def read(self, text: str, *, strict: bool = False, engine: Engine = "fast",
             report: bool = False) -> list[Item] | Decoded:
        """The items of ``text`` (``loads``), or with ``report`` the :class:`Decoded`
        (``decode``): the engine's one pass, else the steps (strictly, the parser).

        A lenient read without a report warns (:class:`LossWarning`) when it lost
        something but an empty turn's None.
        """
        way = self.engines.get(engine)
        if way is None:
            raise ValueError(f"engine must be 'fast' or 'lark', not {engine!r}")
        notes = new_recoveries(text) if report and not strict else None
        read = way[0](text, strict, notes)
        if read is None and strict:
            read = self._strict(text), 0
        if read is not None:
            if not report:
                return read[0]
            if notes is None:
                return Decoded(items=read[0], format=Format.CURRENT)
            others = self._others(text, notes, way[1])
            return _Reading(read[0], notes, candidates(read[1]), others, read[1]).decoded()
        reading = self._read(text, way[1], report)
        if report:
            return reading.decoded()
        _warn_lost(reading.recoveries)
        return reading.items

    def _others(self, text: str, notes: Recoveries, body: Body,
                ) -> tuple[Candidate, ...] | Callable[[], tuple[Candidate, ...]]:
        """The other readings of a text the one pass read, when it lost something: those
        the steps find (the same reading), found when first asked for."""
        if not notes.any_lost():
            return ()

        def found() -> tuple[Candidate, ...]:
            others = self._read(text, body, True).candidates
            return others() if callable(others) else others
        return found

    def _strict(self, text: str) -> list[Item]:
        """The items of a current-format summary the one pass left, read by the parser of
        ``grammar/summary.lark`` (both engines); DecodeError when it is not one."""
        self._check_records(text)
        self._refuse_raw_breaks(text)
        return reference.strict_items(text, self.literals, self.max_depth)

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

    def _envelope(self, text: str) -> tuple[Envelope, None]:
        """The envelope of the fast engine's steps (their lines: ``lines.py``)."""
        self._check_records(text)
        envelope = self.split(text)
        if envelope is None:
            raise reference.syntax_error(text, self.literals, "legacy") or DecodeError(
                "malformed summary envelope", text, 0, (), DecodeReason.SYNTAX)
        return envelope, None

    def _lark_lines(self, text: str) -> tuple[Envelope, dict[int, Line]]:
        """The envelope and the body's lines of the Lark reference."""
        self._check_records(text)
        return reference.legacy_lines(text, self.literals)

    def _read(self, text: str, body: Body, offer: bool) -> _Reading:
        """Steps 3 to 5 on the lines of the fast tokenizer or of the Lark reference (step 5,
        the other readings, if ``offer``)."""
        envelope, tokens = body(text)
        recoveries = new_recoveries(text)
        if envelope.legacy_preamble:
            recoveries.add(1, Code.LEGACY_PREAMBLE)
        if envelope.empty:
            return _Reading([], recoveries, candidates(0), ())
        try:
            return records_reading(self, text, envelope, recoveries, tokens, offer=offer)
        except ReadFailure as failure:
            raise failure.at(text) from None


@functools.cache
def reader(literals: Literals, max_depth: int, max_records: int) -> Reader:
    """The reader of one configuration, built once."""
    return Reader(literals, max_depth, max_records)



def _no_pass(text: str, strict: bool, notes: Recoveries | None) -> None:
    """The Lark reference's one pass: none (it always takes the steps)."""
    return None


def _warn_lost(recoveries: Recoveries) -> None:
    """A :class:`LossWarning` when a lenient read lost something but an empty turn's None."""
    if recoveries.any_lost():
        count, line, kind = recoveries.losses(RecoveryKind.BARE_ROLE)
        if kind is not None:
            warnings.warn(LossWarning(
                f"the summary was read with {count} loss(es), the first on line {line} "
                f"({kind.value}); decode() reports each, with the other readings"),
                stacklevel=4)
