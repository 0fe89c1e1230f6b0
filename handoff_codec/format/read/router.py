"""The router: one cheap look at a summary decides which reader reads it.

``Codec.decode`` and ``Codec.loads`` (default, lenient mode) come here. Text
that starts with the codec's own preamble and start marker, and whose body
lines all start like a record that the strict reader reads as the lenient one
would (``N. {``, or ``N.`` and a ``KNOWN_ROLE`` followed by ":" or " (",
content not starting with "["; or the signature line, or the empty
transcript), goes to the strict reader's single pass
(``_strict.read_current``, which makes the look in place); the lenient
reader (``_lenient``) reads it when that pass gives up, and reads every other
text at once: the short legacy preamble, a bare role, a line that is not
numbered, an ``other: {json}`` record, list content (among the whole lines in
the first ``_LOOK`` characters of the body; a later one the strict pass finds
itself, and gives up on; a body no longer than the look is read at once,
by one ``findall`` that finds such a line too). The look only spares work: it
sends to the lenient reader only text that the strict pass would give up on,
so the result is the same as trying the strict pass on every text
(``tests/format/test_route.py``).

``loads`` needs no report, so its pass (``Router.fast_items``) also reads the
legacy forms that the lenient reader reads the same way in one pass (a bare
role, `type: {json}`, content spilled over lines, list content; see
``_strict.fast_reader``), and its look turns away only a numbered line it
cannot read; ``decode`` leaves such text to the lenient reader, for the report.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from .. import grammar as _grammar
from ..errors import ReadFailure
from ..report import Decoded, Format
from . import lenient as _lenient
from . import strict as _strict

__all__ = ["Router", "router"]

Item = dict[str, Any]
Literals = tuple[tuple[str, str], ...]

# How far into the body the look goes: the first lines. (It costs on every read of
# current text; the strict pass reads the first line's record first, and finds any
# later legacy line itself.)
_LOOK = 128


@functools.cache
def _legacy_line(legacy: bool = False) -> re.Pattern[str]:
    """A line break followed by a whole line (one that ends in a line break too, before
    the end of the search) that the strict pass may not read as the lenient reader.

    With ``legacy``, for the pass that reads legacy forms too (``loads``), only a
    numbered line is such a line, and not one of a bare known role (followed by
    spaces or tabs to the end of its line) or a `type: ` word (``typed_word``):
    a line that is not numbered may continue the content of the record above.
    """
    known = _grammar.terminal("KNOWN_ROLE").pattern
    signature = re.escape(_grammar.signature_parts()[0])  # its line may end past the look
    empty = _grammar.terminal("EMPTY_TRANSCRIPT").pattern
    if legacy:
        typed = _strict.typed_word().pattern
        return re.compile(f"\\n(?=[^\\n]*\\n)(?=[0-9]+\\.)(?![0-9]+\\. (?:\\{{|{known}"
                          f"(?: \\(|(?!: ?\\[):|[ \\t]*\\n)|{typed}(?!: ?\\[):))")
    return re.compile(f"\\n(?=[^\\n]*\\n)(?![0-9]+\\. (?:\\{{|{known}(?: \\(|(?!: ?\\[):))"
                      f"|{signature}|{empty})")


class Router:
    """The look and the readers for one codec's envelope and limits."""

    __slots__ = ("end", "fast", "fast_items", "head", "legacy_line", "lenient_read", "literals",
                 "max_depth", "max_records", "start", "strict_fast", "tail")

    def __init__(self, literals: Literals, start: str, end: str, max_depth: int,
                 max_records: int) -> None:
        self.literals, self.start, self.end = literals, start, end
        self.max_depth, self.max_records = max_depth, max_records
        self.head = _strict.envelope(literals)[0]
        self.tail = len(end)
        self.legacy_line = _legacy_line().search
        # The strict pass with the look in place (looks_current's, as one call: this
        # runs on every read).
        self.fast = _strict.fast_reader(literals, max_depth, max_records, why=False,
                                        lenient_same=True, look=(_legacy_line(), _LOOK))
        # The same for loads, which needs no report: it reads legacy forms too.
        self.fast_items = _strict.fast_reader(
            literals, max_depth, max_records, why=False, lenient_same=True,
            look=(_legacy_line(legacy=True), _LOOK), legacy=True)
        self.strict_fast = _strict.fast_reader(literals, max_depth, max_records, why=True,
                                               lenient_same=False)
        self.lenient_read = _lenient.reading(literals, start, end, max_depth, max_records)

    def looks_current(self, text: str) -> bool:
        """Whether the strict pass may read ``text`` as the lenient reader would.

        False only for text that pass would give up on: not the codec's head,
        or a body line that is not shaped like such a record, the signature
        line or the empty transcript, among the whole lines in the first
        ``_LOOK`` characters of the body (the look costs about a nanosecond a
        character: on a long body the strict pass finds a later one itself).
        The fast strict pass makes the same look in place (``self.fast``).
        """
        head = self.head
        if not text.startswith(head):
            return False
        begin = len(head) - 1  # the line break before the body's first line
        return self.legacy_line(text, begin, min(len(text) - self.tail, begin + _LOOK)) is None

    def items(self, text: str, engine: _strict.Engine = "fast") -> list[Item]:
        """The items of the lenient reading of ``text`` (:meth:`decode`'s)."""
        items = self.fast_items(text) if engine == "fast" else self._current(text, engine)
        if items is not None:
            return items
        return self.lenient_read(text)[1]

    def decode(self, text: str, engine: _strict.Engine = "fast") -> Decoded:
        """The lenient reading of ``text``: the strict pass when the look allows, else (or
        when that pass gives up) the lenient reader. Raises what the lenient reader raises."""
        items = self.fast(text) if engine == "fast" else self._current(text, engine)
        if items is not None:
            return Decoded.model_construct(items=items, format=Format.CURRENT, recoveries=[])
        return self.lenient(text)

    def _current(self, text: str, engine: _strict.Engine) -> list[Item] | None:
        """The LALR engine's strict pass (``engine="lark"``): its items, when the look
        allows it and the pass reads ``text``. (``self.fast`` is the fast engine's.)"""
        _strict.check_engine(engine)
        if not self.looks_current(text):
            return None
        return _strict.read_current(text, self.literals, self.max_depth, engine,
                                    max_records=self.max_records)

    def strict(self, text: str, engine: _strict.Engine = "fast") -> list[Item]:
        """The strict reading of ``text`` (``loads(strict=True)``); raises DecodeError."""
        if engine != "fast":
            return _strict.read(text, self.literals, self.max_depth, engine,
                                max_records=self.max_records)
        try:
            items = self.strict_fast(text)
        except ReadFailure as failure:
            raise _strict.failure_error(failure, text, self.max_records) from None
        if items is not None:
            return items
        return _strict.read_with(None, text, self.literals, self.max_depth, self.max_records)

    def lenient(self, text: str) -> Decoded:
        return _lenient.decoded(*self.lenient_read(text))

    def __reduce__(self) -> tuple[Any, ...]:
        return router, (self.literals, self.start, self.end, self.max_depth, self.max_records)


@functools.cache
def router(literals: Literals, start: str, end: str, max_depth: int, max_records: int) -> Router:
    """The router for one configuration, built once."""
    return Router(literals, start, end, max_depth, max_records)
