"""The envelope: the preamble, the markers and the optional signature line around the body.

:func:`splitter` compares strings, as ``grammar/legacy.lark`` reads the
envelope (the Lark reference reads it with the parser; tests check both
agree): the preamble (the codec's, or the short legacy one), the start
marker, an optional signature line, the body (every line up to the last line
break), and the end marker, which ends the text.
"""

from __future__ import annotations

from .. import grammar

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Envelope", "splitter"]


class Envelope:
    """Where a summary's body is: ``text[begin:stop]``, whole lines, the first on line
    ``first_line``; ``legacy_preamble`` when it has the short preamble; ``empty``
    when the body is the empty transcript."""

    __slots__ = ("begin", "empty", "first_line", "legacy_preamble", "stop")

    def __init__(self, legacy_preamble: bool, begin: int, stop: int, first_line: int,
                 empty: bool) -> None:
        self.legacy_preamble, self.begin, self.stop = legacy_preamble, begin, stop
        self.first_line, self.empty = first_line, empty

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Envelope):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return "Envelope(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"


def splitter(preamble: str, start: str, end: str) -> Callable[[str], Envelope | None]:
    """The envelope split for one codec: the :class:`Envelope` of a text, or None for a
    text whose envelope breaks the grammar (the parser then says where)."""
    legacy = grammar.literal("LEGACY_PREAMBLE", "legacy")
    heads = ((False, f"{preamble}\n{start}\n"), (True, f"{legacy}\n{start}\n"))
    signed, _ = grammar.signature_parts()
    signature = grammar.terminal("_SIGNATURE").match
    empty = grammar.literal("EMPTY_TRANSCRIPT") + "\n"
    tail = "\n" + end

    def split(text: str) -> Envelope | None:
        for is_legacy, head in heads:  # noqa: B007 (the one found is used below)
            if text.startswith(head):
                break
        else:
            return None
        begin = len(head)
        line = head.count("\n") + 1
        if text.startswith(signed, begin):
            match = signature(text, begin)
            if match is not None:
                begin, line = match.end(), line + 1
        stop = len(text) - len(tail) + 1  # just after the line break before the end marker
        if stop <= begin or not text.endswith(tail):
            return None
        if text.startswith(empty, begin):
            return Envelope(is_legacy, begin, stop, line, True) if stop == begin + len(empty) \
                else None
        return Envelope(is_legacy, begin, stop, line, False)

    return split
