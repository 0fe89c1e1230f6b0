"""The format's exceptions: DecodeError (with line and column), EncodeError, and ReadFailure."""

from __future__ import annotations

from enum import Enum

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DecodeError", "DecodeReason", "EncodeError", "LossWarning", "ReadFailure"]


class DecodeReason(str, Enum):
    """Why a summary could not be read."""

    SYNTAX = "syntax"  # the text does not follow the grammar
    NUMBERING = "numbering"  # records not numbered 1, 2, 3, ...
    JSON = "json"  # a JSON record that is not a JSON object
    DEPTH = "depth"  # a JSON record nested deeper than max_depth
    LIMIT = "limit"  # over max_bytes or max_records

    def __str__(self) -> str:
        return self.value


class DecodeError(ValueError):
    """A summary could not be read, as :class:`json.JSONDecodeError` says where.

    ``DecodeError(msg, doc, pos)``: ``doc`` is the text being read and ``pos``
    the 0-based offset of the problem in it. ``lineno`` and ``colno`` are
    1-based and count lines as the grammar does: a line ends at ``"\\n"``
    only (``line`` and ``column`` are the same numbers). ``expected`` names
    what the reader was looking for, in words, and ``reason`` says which rule
    was broken. Instances pickle.
    """

    def __init__(
        self,
        msg: str,
        doc: str,
        pos: int,
        expected: tuple[str, ...] = (),
        reason: DecodeReason = DecodeReason.SYNTAX,
    ) -> None:
        pos = max(0, min(pos, len(doc)))
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - doc.rfind("\n", 0, pos)
        super().__init__(f"{msg} (line {lineno}, column {colno})")
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno
        self.expected = tuple(expected)
        self.reason = DecodeReason(reason)

    @property
    def line(self) -> int:
        """The 1-based line of the problem (``lineno``)."""
        return self.lineno

    @property
    def column(self) -> int:
        """The 1-based column of the problem (``colno``)."""
        return self.colno

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.msg, self.doc, self.pos, self.expected, self.reason))


class ReadFailure(Exception):
    """A DecodeError raised where the whole text is not at hand.

    ``pos`` is absolute in the text being read; the function that holds the
    text turns it into a DecodeError with :meth:`at`. Never escapes the package.
    """

    def __init__(self, msg: str, pos: int, expected: tuple[str, ...],
                 reason: DecodeReason) -> None:
        super().__init__(msg)
        self.msg, self.pos, self.expected, self.reason = msg, pos, expected, reason

    def at(self, doc: str) -> DecodeError:
        """The DecodeError for ``doc``, the text being read."""
        return DecodeError(self.msg, doc, self.pos, self.expected, self.reason)


class EncodeError(ValueError):
    """A summary cannot be written losslessly.

    An item is not a mapping, not JSON, has a key that is not a string or holds
    a surrogate pair as two code points (the message names the item), or the
    summary would be over one of the codec's limits.
    """


class LossWarning(UserWarning):
    """``loads`` read a summary leniently and lost something: a line that belongs to no
    record, records that are gone, or a text with more than one reading (``ambiguous``).

    ``decode`` gives the same items with every recovery and the other readings. Turn it
    into an error with ``warnings.simplefilter("error", LossWarning)`` (or
    ``-W error::handoff_codec.format.LossWarning``). An empty turn written as a bare
    role (None or "", which the text cannot tell) is not warned about.
    """
