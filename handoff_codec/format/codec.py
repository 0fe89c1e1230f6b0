"""``Codec``: one immutable configuration of preamble and markers, and its methods."""

from __future__ import annotations

from . import flattening as _flatten
from . import grammar as _grammar
from . import limits
from .errors import EncodeError
from .read.reader import reader
from .write import SURROGATE, encode_records

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from .flattening import FlattenReport, OnLoss, Trust
    from .read.reader import Engine, Reader
    from .report import Decoded

__all__ = ["DEFAULT_END", "DEFAULT_PREAMBLE", "DEFAULT_START", "LEGACY_PREAMBLE", "Codec",
           "default_codec"]

# The grammar's PREAMBLE, START_MARKER and END_MARKER, and legacy.lark's
# LEGACY_PREAMBLE, here so that `import handoff_codec` does not read the
# grammar (a test checks that they are equal).
DEFAULT_PREAMBLE = (
    "For context, here is the conversation so far between the user and the previous agent:"
)
"""The preamble line the Agents SDK writes since 0.20.0, and ``Codec()``'s default."""
LEGACY_PREAMBLE = "For context, here is the conversation so far:"
"""The shorter preamble of openai-agents 0.6 to 0.19, which the lenient reader accepts."""
DEFAULT_START = "<CONVERSATION HISTORY>"
"""The start marker the Agents SDK writes, and ``Codec()``'s default."""
DEFAULT_END = "</CONVERSATION HISTORY>"
"""The end marker the Agents SDK writes, and ``Codec()``'s default."""

Item = dict[str, "Any"]
_FIELDS = ("preamble", "start", "end", "max_bytes", "max_records", "max_depth", "key",
           "verify_keys")


class Codec:
    """Encoder and reader for one preamble and pair of markers.

    The defaults are the Agents SDK's. Instances are immutable and hashable,
    and share the reader built for equal preambles, markers and limits;
    :meth:`replace` gives a copy with other values.

    Limits (see :mod:`handoff_codec.format.limits`): a read over ``max_bytes``
    bytes of UTF-8, ``max_records`` records or ``max_depth`` levels of JSON
    nesting in a record raises DecodeError; ``dumps`` refuses, with
    EncodeError, to write what the same codec would refuse to read.

    Signing (see :mod:`handoff_codec.format.signing`): with ``key`` every
    summary written carries an HMAC-SHA256 signature line;
    ``flatten(trust="signed")`` expands only summaries that verify under
    ``key`` or one of ``verify_keys`` (older keys, for rotation).
    """

    __slots__ = (*_FIELDS, "_read", "_reader")

    preamble: str
    start: str
    end: str
    max_bytes: int
    max_records: int
    max_depth: int
    key: bytes | None
    verify_keys: tuple[bytes, ...]
    _reader: Reader
    _read: Callable[..., Any]

    def __init__(self, preamble: str = DEFAULT_PREAMBLE, start: str = DEFAULT_START,
                 end: str = DEFAULT_END, max_bytes: int = limits.DEFAULT_MAX_BYTES,
                 max_records: int = limits.DEFAULT_MAX_RECORDS,
                 max_depth: int = limits.DEFAULT_MAX_DEPTH, key: bytes | None = None,
                 verify_keys: Iterable[bytes] = ()) -> None:
        for name, text in (("preamble", preamble), ("start", start), ("end", end)):
            if not isinstance(text, str) or not text:
                raise ValueError(f"Codec {name} must be a non-empty string")
            if SURROGATE.search(text):
                raise ValueError(f"Codec {name} holds a lone surrogate, which no UTF-8 "
                                 "text can store")
        if "\n" in preamble:
            raise ValueError("Codec preamble must be one line, without '\\n'")
        if preamble == LEGACY_PREAMBLE:
            # A reader could not tell this codec's summaries from the legacy ones.
            raise ValueError("Codec preamble must not be the legacy preamble "
                             f"{LEGACY_PREAMBLE!r}, which openai-agents 0.6 to 0.19 wrote")
        # Markers may span lines (the Agents SDK accepts any wrappers), but a line
        # of the end marker that the lenient reader numbers as a record line
        # (grammar/legacy.lark's RECORD_NUMBER), before its last line, would
        # make the text ambiguous.
        if _grammar.terminal("RECORD_NUMBER", "legacy").search(end.rpartition("\n")[0]):
            raise ValueError("Codec end must not hold a line shaped like a record "
                             "('N. ...') before its last line")
        for name, number in (("max_bytes", max_bytes), ("max_records", max_records),
                             ("max_depth", max_depth)):
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise ValueError(f"Codec {name} must be a positive int")
        if key is not None and (not isinstance(key, bytes) or not key):
            raise ValueError("Codec key must be non-empty bytes")
        keys = tuple(verify_keys)
        if not all(isinstance(k, bytes) and k for k in keys):
            raise ValueError("Codec verify_keys must be non-empty bytes")
        for name, value in zip(_FIELDS, (preamble, start, end, max_bytes, max_records,
                                         max_depth, key, keys), strict=True):
            object.__setattr__(self, name, value)
        literals = (("PREAMBLE", preamble), ("START_MARKER", start), ("END_MARKER", end))
        object.__setattr__(self, "_reader", reader(literals, max_depth, max_records))
        object.__setattr__(self, "_read", self._reader.read)

    def replace(self, **changes: Any) -> Codec:
        """A copy of this codec with the fields in ``changes`` replaced."""
        values = {name: getattr(self, name) for name in _FIELDS}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"Codec has no field {sorted(unknown)[0]!r}")
        return Codec(**{**values, **changes})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Codec is immutable: use replace({name}=...)")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Codec):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS[:6])
        return f"Codec({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        return Codec, self._values()

    # ------------------------------------------------------------ writing
    def dumps(self, items: Iterable[Mapping[str, Any]]) -> str:
        """The summary text for a list of Responses-API input items (signed if ``key``).

        Raises EncodeError (a ValueError) for what this codec would refuse to
        read back: an item that is not a mapping or not JSON-compatible
        (NaN and Infinity included), JSON nested deeper than ``max_depth``,
        more than ``max_records`` items, or text over ``max_bytes``.
        """
        records = encode_records(items, self.max_depth) or [_grammar.literal("EMPTY_TRANSCRIPT")]
        if len(records) > self.max_records:
            raise EncodeError(f"more than max_records={self.max_records} items")
        text = "\n".join((self.preamble, self.start, *records, self.end))
        if self.key is not None:
            from .signing import sign_text

            text = sign_text(text, self.key, self._head_lines)
        if len(text) * 4 > self.max_bytes and limits.utf8_size(text) > self.max_bytes:
            raise EncodeError(f"summary larger than max_bytes={self.max_bytes} bytes")
        return text

    def summarize(self, items: Iterable[Mapping[str, Any]]) -> Item:
        """The assistant message that carries ``dumps(items)``."""
        return {"role": "assistant", "content": self.dumps(items)}

    # ------------------------------------------------------------ reading
    def loads(self, text: str, *, strict: bool = False, engine: Engine = "fast") -> list[Item]:
        """The items of a summary.

        ``strict=True`` accepts only the current format (``grammar/summary.lark``).
        The default also reads every form written by openai-agents 0.6 to 0.19;
        :meth:`decode` says what it recovered. ``engine="lark"`` reads with the
        LALR parser generated from the grammar instead of the default
        single-pass reader; both give the same result.

        Raises TypeError when ``text`` is not a str, and DecodeError (a
        ValueError) when it cannot be read: text over ``max_bytes`` bytes of
        UTF-8 or ``max_records`` records (reason ``limit``), text that breaks
        the grammar (``syntax``), records not numbered 1, 2, 3, ...
        (``numbering``), a JSON record that is not an RFC 8259 object
        (``json``; NaN and Infinity are read only leniently) or that nests
        deeper than ``max_depth`` (``depth``).
        """
        if not isinstance(text, str) or len(text) * 4 > self.max_bytes:
            self._check(text)  # in place for the usual text: this runs on every read
        items: list[Item] = self._read(text, strict=strict, engine=engine)
        return items

    def decode(self, text: str, *, strict: bool = False, engine: Engine = "fast") -> Decoded:
        """Items plus a report: the writer generation and every recovery made.

        Reads as :meth:`loads` does, and raises what it raises.
        """
        if not isinstance(text, str) or len(text) * 4 > self.max_bytes:
            self._check(text)
        decoded: Decoded = self._read(text, strict=strict, engine=engine, report=True)
        return decoded

    def _check(self, text: object) -> None:
        """A TypeError for a non-str, a DecodeError for text over ``max_bytes``.

        The readers check ``max_records`` themselves, before anything but a
        read of at most ``max_records + 1`` records.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected the summary as str, not {type(text).__name__}")
        limits.check_size(text, max_bytes=self.max_bytes)

    def verify(self, text: str) -> bool:
        """Whether ``text`` carries a signature that verifies under one of this codec's keys."""
        from .signing import verify_text

        return verify_text(text, self._keys, self._head_lines) == "verified"

    @property
    def _head_lines(self) -> int:
        """The lines before the body: the preamble and the start marker's."""
        return 2 + self.start.count("\n")

    @property
    def _keys(self) -> tuple[bytes, ...]:
        return self.verify_keys if self.key is None else (self.key, *self.verify_keys)

    def is_summary(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` is an assistant message wrapped in this codec's envelope."""
        if item.get("role") != "assistant":
            return False
        content = item.get("content")
        if not isinstance(content, str):
            return False
        # Compared in place: a summary can be megabytes, and this runs on every message.
        if content.startswith(self.preamble + "\n"):
            begin = len(self.preamble) + 1
        elif content.startswith(LEGACY_PREAMBLE + "\n"):
            begin = len(LEGACY_PREAMBLE) + 1
        else:
            return False
        return (content.startswith(self.start + "\n", begin)
                and content.endswith("\n" + self.end, begin))

    def flatten(self, items: Iterable[Mapping[str, Any]], *, trust: Trust = "any",
                on_loss: OnLoss = "keep", restore_empty: bool = False) -> list[Item]:
        """A new list: every summary message expanded, every other item copied.

        ``items`` is not changed. A message that has the envelope is kept as it
        is, unexpanded, when it cannot be read (DecodeError, including a limit:
        ``max_bytes``, ``max_records``, ``max_depth``), when ``trust="signed"``
        and its signature does not verify, or, with ``on_loss="keep"`` (the
        default), when reading it would drop a line that belongs to no record
        (an ``unrecognised`` recovery) or its split into records rests on no
        evidence of the writer (``ambiguous``: a line of content may become a
        turn, as ``migrate`` leaves such a summary untouched). ``on_loss="drop"``
        expands such a summary anyway, dropping those lines, as the Agents SDK's
        reader does.
        :meth:`flatten_report` says what happened to each message.

        ``restore_empty=True`` then turns every turn whose whole text is a known
        empty-turn placeholder (``"."``, ``(empty)``, LiteLLM's and others: see
        :func:`handoff_codec.replay.restore_empty`) back into an empty turn, so
        placeholders written for one provider do not pile up hop after hop.

        Raises ValueError for an unknown ``trust`` or ``on_loss``, or
        ``trust="signed"`` without a key; never DecodeError.
        """
        return _flatten.flatten(self, items, trust=trust, on_loss=on_loss,
                                restore_empty=restore_empty)

    def flatten_report(self, items: Iterable[Mapping[str, Any]], *, trust: Trust = "any",
                       on_loss: OnLoss = "keep", restore_empty: bool = False) -> FlattenReport:
        """:meth:`flatten`, plus one decision (with the reader's recoveries) per summary message.

        With ``restore_empty``, ``placeholders`` says which turns were restored
        and which start with a placeholder but go on (leaks: reported, not cut).
        """
        return _flatten.flatten_report(self, items, trust=trust, on_loss=on_loss,
                                       restore_empty=restore_empty)

    def nest(self, items: Iterable[Mapping[str, Any]]) -> list[Item]:
        """``[summarize(flatten(items))]``, the shape of a HandoffHistoryMapper."""
        return _flatten.nest(self, items)


# The Agents SDK's envelope: what the module functions of handoff_codec use.
default_codec = Codec()
"""``Codec()``: the Agents SDK's preamble and markers, default limits, no key.

``handoff_codec.dumps``, ``loads``, ``decode``, ``flatten`` and ``nest`` are its methods.
"""
