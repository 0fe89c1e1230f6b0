"""Exceptions raised by handoff_codec."""

from __future__ import annotations

__all__ = ["DecodeError", "EncodeError", "ReplayError"]


class DecodeError(ValueError):
    """A summary could not be read.

    ``line`` and ``column`` are 1-based and count lines as the grammar does:
    a line ends at ``"\\n"`` only. ``pos`` is the 0-based offset into the text,
    and ``expected`` names what the reader was looking for.
    """

    def __init__(
        self,
        msg: str,
        *,
        line: int,
        column: int,
        pos: int,
        expected: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"{msg} (line {line}, column {column})")
        self.msg = msg
        self.line = line
        self.column = column
        self.pos = pos
        self.expected = expected

    @classmethod
    def at(cls, text: str, pos: int, msg: str, expected: tuple[str, ...] = ()) -> DecodeError:
        """Build an error for offset ``pos`` of ``text``."""
        pos = max(0, min(pos, len(text)))
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return cls(msg, line=line, column=column, pos=pos, expected=expected)


class EncodeError(ValueError):
    """An item cannot be written losslessly (not a mapping, or not JSON)."""


class ReplayError(ValueError):
    """An item cannot be converted to a Chat Completions message."""

    def __init__(self, msg: str, *, index: int) -> None:
        super().__init__(f"item {index}: {msg}")
        self.msg = msg
        self.index = index
