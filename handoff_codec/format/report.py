"""What ``decode`` reports: the items, the writer, every recovery, and the other readings.

``Decoded``, ``Recovery`` and ``Candidate`` are plain slotted classes (see
:mod:`.models`): cheap to build on every read, with pydantic's ``model_dump``,
``model_dump_json`` and ``model_validate`` loaded only when used.
"""

from __future__ import annotations

from array import array
from enum import Enum

from .models import Model

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import Any, ClassVar, overload

__all__ = ["Candidate", "Decoded", "Format", "Note", "Recoveries", "Recovery", "RecoveryKind",
           "lossless"]


class _Named(str, Enum):
    """An enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return str(self.value)


class Format(_Named):
    """Which writer generation wrote a summary's text, as far as the text shows.

    ``LEGACY`` says that the evidence leaves several generations (or a writer
    outside openai-agents' releases): :attr:`Decoded.writers` names them.
    """

    CURRENT = "current"  # openai-agents >= 0.20.0 and handoff_codec
    LEGACY_0_17_1 = "legacy-0.17.1-0.19"  # 0.17.1 to 0.19.x: JSON records, bare roles
    LEGACY_0_6 = "legacy-0.6-0.17.0"  # 0.6 to 0.17.0: raw multi-line content, `type: {json}`
    LEGACY = "legacy"  # not the current format; the writer is one of Decoded.writers


class RecoveryKind(_Named):
    """What the lenient reader did, or what it found missing."""

    LEGACY_PREAMBLE = "legacy_preamble"  # the short preamble of older readers
    BARE_ROLE = "bare_role"  # an empty turn written as a bare role
    CONTINUATION = "continuation"  # content that spilled onto lines that are not numbered
    TYPED_RECORD = "typed_record"  # `type: {json}`, an item without a role
    RENUMBERED = "renumbered"  # a record numbered out of sequence: records edited or gone
    AMBIGUOUS = "ambiguous"  # two readings remain: the text one is kept (see candidates)
    NOT_JSON = "not_json"  # a record that starts with "{" but is not JSON
    UNRECOGNISED = "unrecognised"  # a line that belongs to no record
    NON_STANDARD_JSON = "non_standard_json"  # NaN or Infinity in a JSON record


def _typed_dict(name: str, required: dict[str, Any], optional: dict[str, Any]) -> Any:
    """A ``TypedDict`` class for pydantic, made at run time (on a report's first dump)."""
    from typing_extensions import NotRequired, TypedDict

    fields = {**required, **{key: NotRequired[value] for key, value in optional.items()}}
    make: Any = TypedDict
    return make(name, fields)


class Recovery(Model):
    """One place where the reader went beyond the current format.

    ``lost`` is true when the text may no longer hold what was written:
    provably (whether an empty turn was ``None`` or ``""``, a record that is
    gone) or possibly (``ambiguous``: the reading kept may not be the writer's).
    """

    __slots__ = ("kind", "line", "lost", "message")
    _fields = ("line", "kind", "message", "lost")
    _defaults: ClassVar[dict[str, Any]] = {"lost": False}

    line: int
    kind: RecoveryKind
    message: str
    lost: bool

    def __hash__(self) -> int:
        return hash((self.line, self.kind, self.message, self.lost))

    @classmethod
    def _typed_dict(cls) -> Any:
        return _typed_dict("RecoveryDict", {"line": int, "kind": RecoveryKind, "message": str},
                           {"lost": bool})


class Candidate(Model):
    """A reading the text also allows, that ``decode`` did not return (see ``ambiguous``).

    ``reading`` says in words what it takes the text to be. ``items`` may be
    given as a function that reads them: they are then read when first used
    (a long summary's other reading costs nothing until it is asked for).
    """

    __slots__ = ("_items", "reading")
    _fields = ("reading", "items")

    reading: str
    _items: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]]

    def __init__(self, *, reading: str, items: list[dict[str, Any]] | Callable[
            [], list[dict[str, Any]]]) -> None:
        object.__setattr__(self, "reading", reading)
        object.__setattr__(self, "_items", items)

    @property
    def items(self) -> list[dict[str, Any]]:
        """The items of this reading."""
        if callable(self._items):
            object.__setattr__(self, "_items", self._items())
        assert isinstance(self._items, list)
        return self._items

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def _typed_dict(cls) -> Any:
        from typing import Any

        return _typed_dict("CandidateDict", {"reading": str, "items": list[dict[str, Any]]}, {})


class Note:
    """One kind of recovery a reader notes: its kind, loss, and message.

    ``message`` is the message itself, or a function that writes it from the
    summary text and the two ints noted with the recovery.
    """

    __slots__ = ("kind", "lost", "message")

    def __init__(self, kind: RecoveryKind, message: str | Callable[[str, int, int], str],
                 lost: bool = False) -> None:
        self.kind, self.message, self.lost = kind, message, lost


class Recoveries:
    """The recoveries of one read, in line order, a few ints each.

    Each is kept as a line, the index of its :class:`Note` and two ints; a
    :class:`Recovery` is built whenever one is read, so a summary of 100,000
    bare roles does not cost 100,000 objects. It keeps the summary text, from
    which messages that quote it are written. A sequence of Recovery.
    """

    __slots__ = ("_codes", "_ints", "_notes", "_text")

    def __init__(self, text: str, notes: tuple[Note, ...]) -> None:
        self._text, self._notes = text, notes
        self._ints = array("i" if len(text) < 2**31 - 1 else "q")  # line, a, b of each
        self._codes = bytearray()

    def add(self, line: int, code: int, a: int = 0, b: int = 0) -> int:
        """Note recovery ``notes[code]`` at ``line``, with the ints its message needs; its
        index, for :meth:`update`."""
        self._ints.extend((line, a, b))
        self._codes.append(code)
        return len(self._codes) - 1

    def truncate(self, count: int) -> None:
        """Keep the first ``count`` recoveries (a reading started over from there)."""
        del self._ints[3 * count:]
        del self._codes[count:]

    def update(self, index: int, a: int) -> None:
        """Set the first int of recovery ``index`` (a count known only later)."""
        self._ints[3 * index + 1] = a

    def merge(self, notes: Iterable[tuple[int, int, int, int]]) -> None:
        """Add ``notes`` (each ``(line, code, a, b)``, in line order) in line order with
        those noted already: each after every recovery noted on its line or before it."""
        ints, codes = self._ints, self._codes
        merged, merged_codes = array(ints.typecode), bytearray()
        index, count = 0, len(codes)
        for line, code, a, b in notes:
            while index < count and ints[3 * index] <= line:
                merged.extend(ints[3 * index:3 * index + 3])
                merged_codes.append(codes[index])
                index += 1
            merged.extend((line, a, b))
            merged_codes.append(code)
        merged.extend(ints[3 * index:])
        merged_codes += codes[index:]
        self._ints, self._codes = merged, merged_codes

    def kinds(self) -> set[RecoveryKind]:
        """The kinds of recovery noted, building none."""
        return {self._notes[code].kind for code in set(self._codes)}

    def any_lost(self) -> bool:
        """Whether one of them says information may be lost, without building one."""
        return any(self._notes[code].lost for code in set(self._codes))

    def losses(self, but: RecoveryKind) -> tuple[int, int, RecoveryKind | None]:
        """How many say information may be lost, but those of kind ``but``, and the line
        and kind of the first of them (0 and None when none), building none."""
        notes, count, first = self._notes, 0, -1
        for index, code in enumerate(self._codes):
            note = notes[code]
            if note.lost and note.kind is not but:
                count += 1
                if first < 0:
                    first = index
        if first < 0:
            return 0, 0, None
        return count, self._ints[3 * first], notes[self._codes[first]].kind

    def __len__(self) -> int:
        return len(self._codes)

    if TYPE_CHECKING:
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
        if isinstance(other, (str, bytes)) or not hasattr(other, "__len__") \
                or not hasattr(other, "__iter__"):
            return NotImplemented
        return len(self) == len(other) and all(
            x == y for x, y in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Recoveries({list(self)!r})"


def lossless(recoveries: Sequence[Recovery] | Recoveries) -> bool:
    """True when no recovery says that information may be lost (building none if compact)."""
    if isinstance(recoveries, Recoveries):
        return not recoveries.any_lost()
    return not any(r.lost for r in recoveries)


class Decoded(Model):
    """The result of :func:`handoff_codec.decode`.

    ``items`` is the reading returned; ``format`` the writer generation the
    text shows (``legacy`` when the evidence leaves several) and ``writers``
    every writer the evidence leaves, with ``unkept``, what their texts cannot
    hold (so a reader knows what to distrust, whatever this reader did);
    ``recoveries`` every place the reader went beyond the current format, in
    line order; ``candidates`` the other readings an ``ambiguous`` recovery
    stands for.
    """

    __slots__ = ("_candidates", "format", "items", "recoveries", "unkept", "writers")
    _fields = ("items", "format", "recoveries", "writers", "unkept", "candidates")
    _defaults: ClassVar[dict[str, Any]] = {"recoveries": list, "writers": (), "unkept": (),
                                           "candidates": ()}

    items: list[dict[str, Any]]
    format: Format
    recoveries: Sequence[Recovery] | Recoveries
    writers: tuple[str, ...]
    unkept: tuple[str, ...]
    _candidates: tuple[Candidate, ...] | Callable[[], tuple[Candidate, ...]]

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, *, items: list[dict[str, Any]], format: Format,
                 recoveries: Sequence[Recovery] | Recoveries | None = None,
                 writers: tuple[str, ...] = (), unkept: tuple[str, ...] = (),
                 candidates: tuple[Candidate, ...] | Callable[[], tuple[Candidate, ...]] = (),
                 ) -> None:
        # Spelled out, not Model's loop: a report is built on every read.
        setter = object.__setattr__
        setter(self, "items", items)
        setter(self, "format", format)
        setter(self, "recoveries", [] if recoveries is None else recoveries)
        setter(self, "writers", writers)
        setter(self, "unkept", unkept)
        setter(self, "_candidates", candidates)

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The other readings. They may be given as a function that finds them: they are
        then found when first asked for (as a Candidate's items are read)."""
        found = self._candidates
        if callable(found):
            found = found()
            object.__setattr__(self, "_candidates", found)
        return found

    @property
    def lossless(self) -> bool:
        """True when no recovery says that information may be lost."""
        return lossless(self.recoveries)

    @property
    def complete(self) -> bool:
        """True when every line of the summary was read into an item."""
        if isinstance(self.recoveries, Recoveries):
            return RecoveryKind.UNRECOGNISED not in self.recoveries.kinds()
        return not any(r.kind is RecoveryKind.UNRECOGNISED for r in self.recoveries)

    @classmethod
    def _typed_dict(cls) -> Any:
        from typing import Any

        recovery, candidate = Recovery._typed_dict(), Candidate._typed_dict()
        return _typed_dict("DecodedDict", {"items": list[dict[str, Any]], "format": Format}, {
            "recoveries": list[recovery], "writers": tuple[str, ...],  # type: ignore[valid-type]
            "unkept": tuple[str, ...], "candidates": tuple[candidate, ...]})  # type: ignore[valid-type]

    @classmethod
    def _from_dict(cls, values: dict[str, Any]) -> Decoded:
        values = dict(values)
        values["recoveries"] = [Recovery(**r) for r in values.get("recoveries", [])]
        values["candidates"] = tuple(Candidate(**c) for c in values.get("candidates", ()))
        return cls(**values)
