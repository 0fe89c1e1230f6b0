"""The router: one cheap look at a summary decides which reader reads it.

``Codec.decode`` and ``Codec.loads`` (default, lenient mode) come here. Text
that starts with the codec's own preamble and start marker, and whose body
lines all start like a record the strict reader reads as the lenient one
would (``N. {``, or ``N.`` and a ``KNOWN_ROLE`` followed by ":" or " (",
content not starting with "["), goes to the strict reader's single pass
(``_strict.read_current``); the lenient reader (``_lenient``) reads it when
that pass gives up, and reads every other text at once: the short legacy
preamble, a bare role, a line that is not numbered, an ``other: {json}``
record, list content. The look only spares work: it sends to the lenient
reader only text that the strict pass would give up on, so the result is the
same as trying the strict pass on every text (a test checks this).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from . import _grammar, _lenient, _strict
from ._report import Decoded, Format

__all__ = ["decode", "looks_current"]

Item = dict[str, Any]
Literals = tuple[tuple[str, str], ...]


@functools.cache
def _legacy_line() -> re.Pattern[str]:
    """A line break followed by a line the strict pass would not read as the lenient reader."""
    known = _grammar.terminal("KNOWN_ROLE").pattern
    return re.compile(f"\\n(?![0-9]+\\. (?:\\{{|{known}(?: \\(|(?!: ?\\[):)))")


def looks_current(text: str, literals: Literals) -> bool:
    """Whether the strict reader's single pass may read ``text`` as the lenient one would.

    False only for text it would give up on: not the codec's head, or a body
    line (between the head, and a signature line, and the end marker) that is
    not shaped like such a record.
    """
    head, empty, end = _strict.envelope(literals)
    if not text.startswith(head):
        return False
    pos = len(head)
    signature = _grammar.terminal("_SIGNATURE").match(text, pos)
    if signature is not None:
        pos = signature.end()
    if text.startswith(empty, pos):
        return True
    return _legacy_line().search(text, pos - 1, len(text) - len(end) - 1) is None


def decode(text: str, literals: Literals, start: str, end: str, max_depth: int,
           engine: _strict.Engine = "fast", *, max_records: int) -> Decoded:
    """The lenient reading of ``text``: the strict pass when the router's look allows, else
    (or when that pass gives up) the lenient reader. Raises what the lenient reader raises."""
    _strict.check_engine(engine)
    if looks_current(text, literals):
        items = _strict.read_current(text, literals, max_depth, engine, max_records=max_records)
        if items is not None:
            return Decoded.model_construct(items=items, format=Format.CURRENT, recoveries=[])
    return _lenient.parse_lenient(text, literals, start, end, max_depth,
                                  max_records=max_records)
