"""What ``decode`` reports: the items, the writer generation, and every recovery."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Decoded", "Format", "Recovery", "RecoveryKind"]


class _Named(str, Enum):
    """An enum whose ``str()`` is its value."""

    def __str__(self) -> str:
        return str(self.value)


class Format(_Named):
    """Which writer generation a summary's text matches."""

    CURRENT = "current"  # openai-agents >= 0.20.0 and handoff_codec
    LEGACY_0_17_1 = "legacy-0.17.1-0.19"  # 0.17.1 to 0.19.x: bare roles for empty turns
    LEGACY_0_6 = "legacy-0.6-0.17.0"  # 0.6 to 0.17.0: raw multi-line content, `type: {json}`


class RecoveryKind(_Named):
    """What the lenient reader did, or what it found missing."""

    LEGACY_PREAMBLE = "legacy_preamble"
    BARE_ROLE = "bare_role"
    CONTINUATION = "continuation"
    TYPED_RECORD = "typed_record"
    LIST_CONTENT = "list_content"  # a JSON array after the colon, read back as a list
    ARRAY_AS_TEXT = "array_as_text"  # a JSON array after the colon, kept as the text
    RENUMBERED = "renumbered"  # a record numbered out of sequence
    NOT_JSON = "not_json"
    UNRECOGNISED = "unrecognised"
    NON_STANDARD_JSON = "non_standard_json"  # NaN or Infinity in a JSON record


class Recovery(BaseModel):
    """One place where the reader went beyond the current format.

    ``lost`` is true when the text provably no longer holds some information
    (for example whether an empty turn was ``None`` or ``""``).
    """

    model_config = ConfigDict(frozen=True)

    line: int
    kind: RecoveryKind
    message: str
    lost: bool = False


class Decoded(BaseModel):
    """The result of :func:`handoff_codec.decode`."""

    items: list[dict[str, Any]]
    format: Format
    recoveries: list[Recovery] = []

    @property
    def lossless(self) -> bool:
        """True when no recovery says that information is missing."""
        return not any(r.lost for r in self.recoveries)

    @property
    def complete(self) -> bool:
        """True when every line of the summary was read into an item."""
        return not any(r.kind is RecoveryKind.UNRECOGNISED for r in self.recoveries)
