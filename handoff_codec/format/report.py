"""What ``decode`` reports: the items, the writer generation, and every recovery.

``Decoded`` and ``Recovery`` are slotted dataclasses (see :mod:`._models`):
cheap to build on every read, with pydantic's ``model_dump``,
``model_dump_json`` and ``model_validate`` loaded only when used. A new field
or recovery kind is one line: the schema is made from the fields and enums.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import chain, compress
from typing import Annotated, Any, overload

from .models import AS_LIST, Model

__all__ = ["Decoded", "Format", "Note", "Recoveries", "Recovery", "RecoveryKind", "int_array"]


def int_array(bound: int, values: Iterable[int] = ()) -> array[int]:
    """An array for ints from -1 to ``bound``: 4 bytes each when that is enough, else 8."""
    return array("i" if bound < 2**31 else "q", values)


class _Named(str, Enum):
    """An enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return str(self.value)


class Format(_Named):
    """Which writer generation wrote a summary's text, as far as the text shows.

    ``LEGACY`` says that the evidence cannot tell several generations apart:
    :attr:`Decoded.candidates` names them.
    """

    CURRENT = "current"  # openai-agents >= 0.20.0 and handoff_codec
    LEGACY_0_17_1 = "legacy-0.17.1-0.19"  # 0.17.1 to 0.19.x: JSON records, bare roles
    LEGACY_0_6 = "legacy-0.6-0.17.0"  # 0.6 to 0.17.0: raw multi-line content, `type: {json}`
    LEGACY = "legacy"  # not the current format; the writer is one of Decoded.candidates


class RecoveryKind(_Named):
    """What the lenient reader did, or what it found missing."""

    LEGACY_PREAMBLE = "legacy_preamble"
    BARE_ROLE = "bare_role"
    CONTINUATION = "continuation"
    TYPED_RECORD = "typed_record"
    LIST_CONTENT = "list_content"  # a JSON array after the colon, read back as a list
    ARRAY_AS_TEXT = "array_as_text"  # a JSON array after the colon, kept as the text
    RENUMBERED = "renumbered"  # a record numbered out of sequence
    AMBIGUOUS = "ambiguous"  # a split into records that rests on no evidence (a possible loss)
    NOT_JSON = "not_json"
    UNRECOGNISED = "unrecognised"
    NON_STANDARD_JSON = "non_standard_json"  # NaN or Infinity in a JSON record


@dataclass(frozen=True, slots=True, kw_only=True)
class Recovery(Model):
    """One place where the reader went beyond the current format.

    ``lost`` is true when the text provably no longer holds some information
    (for example whether an empty turn was ``None`` or ``""``).
    """

    line: int
    kind: RecoveryKind
    message: str
    lost: bool = False


@dataclass(frozen=True)
class Note:
    """One kind of recovery a reader notes: its kind, loss, and message.

    ``message`` is the message itself, or a function that writes it from the
    summary text and the two ints noted with the recovery (each from -1 to
    the length of the text).
    """

    kind: RecoveryKind
    message: str | Callable[[str, int, int], str]
    lost: bool = False


@functools.cache
def _keeping(code: int) -> bytes:
    """A ``bytes.translate`` table: 0 for ``code``, 1 for every other byte."""
    return bytes(other != code for other in range(256))


class Recoveries(Sequence[Recovery]):
    """The recoveries of one read, in line order, 13 bytes each (25 past 2 GiB).

    Each is kept as a line, the index of its :class:`Note` and two ints; a
    :class:`Recovery` is built whenever one is read, so a summary of 100,000
    records does not cost 100,000 models. It keeps the summary text, from
    which messages that quote it are written.
    """

    __slots__ = ("_codes", "_ints", "_notes", "_text")

    def __init__(self, text: str, notes: tuple[Note, ...]) -> None:
        self._text, self._notes = text, notes
        # Line, then the two ints, of each: from -1 to the length of the text.
        self._ints = array("i" if len(text) < 2**31 - 1 else "q")
        self._codes = bytearray()

    def add(self, line: int, code: int, a: int = 0, b: int = 0) -> None:
        """Note recovery ``notes[code]`` at ``line``, with the ints its message needs."""
        self._ints.extend((line, a, b))
        self._codes.append(code)

    def appenders(self) -> tuple[Callable[[Iterable[int]], None], Callable[[int], None]]:
        """For a reader that notes many: what :meth:`add` does, as two calls,
        ``extend((line, a, b))`` and ``append(code)``."""
        return self._ints.extend, self._codes.append

    def codes(self) -> frozenset[int]:
        """The codes (indexes into ``notes``) of the recoveries noted."""
        return frozenset(self._codes)

    def settle(self, pending: int, codes: Iterable[int]) -> None:
        """Give the recoveries noted with code ``pending``, in order, the codes
        ``codes`` (one each, or none at all), then drop those left ``pending``."""
        column = self._codes
        if pending not in column:
            return
        index = -1
        for code in codes:
            index = column.index(pending, index + 1)
            column[index] = code
        if pending not in column:
            return
        keep = column.translate(_keeping(pending))
        self._codes = bytearray(compress(column, keep))
        thrice = chain.from_iterable(zip(keep, keep, keep, strict=True))  # line, a and b
        self._ints = array(self._ints.typecode, compress(self._ints, thrice))

    def kinds(self, without: int = -1) -> set[RecoveryKind]:
        """The kinds of recovery noted (but those with code ``without``), building none."""
        return {self._notes[code].kind for code in set(self._codes) if code != without}

    def any_lost(self) -> bool:
        """Whether one of them says information is lost, without building one."""
        return any(self._notes[code].lost for code in set(self._codes))

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Recovery: ...
    @overload
    def __getitem__(self, index: slice) -> list[Recovery]: ...
    def __getitem__(self, index: int | slice) -> Recovery | list[Recovery]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        note = self._notes[self._codes[index]]  # IndexError when out of range
        if index < 0:
            index += len(self._codes)
        line, a, b = self._ints[3 * index:3 * index + 3]
        message = note.message
        if not isinstance(message, str):
            message = message(self._text, a, b)
        return Recovery(line=line, kind=note.kind, message=message, lost=note.lost)

    def __iter__(self) -> Iterator[Recovery]:
        return map(self.__getitem__, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(x == y for x, y in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Recoveries({list(self)!r})"


def lossless(recoveries: Sequence[Recovery]) -> bool:
    """True when no recovery says that information is missing (building none if compact)."""
    if isinstance(recoveries, Recoveries):
        return not recoveries.any_lost()
    return not any(r.lost for r in recoveries)


@dataclass(slots=True, kw_only=True)
class Decoded(Model):
    """The result of :func:`handoff_codec.decode`.

    ``recoveries`` is a sequence (a list, or the lenient reader's compact
    :class:`Recoveries`) of :class:`Recovery`, in line order; dumped as a list.
    """

    items: list[dict[str, Any]]
    format: Format
    recoveries: Annotated[Sequence[Recovery], AS_LIST] = field(default_factory=list)
    # With format ``legacy``: the generations the text may come from, oldest first.
    candidates: tuple[Format, ...] = ()

    @property
    def lossless(self) -> bool:
        """True when no recovery says that information is missing."""
        return lossless(self.recoveries)

    @property
    def complete(self) -> bool:
        """True when every line of the summary was read into an item."""
        if isinstance(self.recoveries, Recoveries):
            return RecoveryKind.UNRECOGNISED not in self.recoveries.kinds()
        return not any(r.kind is RecoveryKind.UNRECOGNISED for r in self.recoveries)
