"""Flattening: every summary message of a conversation expanded into its items.

``Codec.flatten``, ``flatten_report`` and ``nest`` call these functions with
the codec, whose reader, envelope and keys they use. Each summary message gets
a :class:`TrustDecision`: whether it was expanded, and the :class:`Reason`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from .content import as_text_message
from .errors import DecodeError
from .report import RecoveryKind

if TYPE_CHECKING:
    from .codec import Codec
    from .report import Recovery

__all__ = ["FlattenReport", "OnLoss", "Reason", "Trust", "TrustDecision", "flatten",
           "flatten_report", "nest"]

Item = dict[str, Any]
Trust = Literal["any", "signed"]
OnLoss = Literal["keep", "drop"]


class Reason(str, Enum):
    """Why a summary message was, or was not, expanded by ``flatten``."""

    EXPANDED = "expanded"  # trust="any": read without checking a signature
    VERIFIED = "verified"  # trust="signed": the signature verifies under a key
    UNSIGNED = "unsigned"  # trust="signed": no signature line; kept as a message
    BAD_SIGNATURE = "bad signature"  # a signature line that no key verifies
    UNREADABLE = "unreadable"  # has the envelope but could not be decoded
    LOSSY = "lossy"  # on_loss="keep": it would drop a line or split ambiguously; kept


@dataclass(frozen=True)
class TrustDecision:
    """What ``flatten`` did with the summary message at ``index`` of its input.

    ``recoveries`` are the lenient reader's, for a message it read.
    """

    index: int
    expanded: bool
    reason: Reason
    detail: str = ""
    recoveries: tuple[Recovery, ...] = ()


@dataclass(frozen=True)
class FlattenReport:
    """The flattened items, and one decision per message that had the envelope."""

    items: list[dict[str, Any]]
    decisions: list[TrustDecision] = field(default_factory=list)
    # With flatten(restore_empty=True): a handoff_codec.replay.RestoreReport.
    placeholders: Any = None

    @property
    def kept(self) -> list[TrustDecision]:
        """The decisions for summary messages left unexpanded."""
        return [d for d in self.decisions if not d.expanded]


def flatten_report(codec: Codec, items: Iterable[Mapping[str, Any]], *, trust: Trust = "any",
                   on_loss: OnLoss = "keep", restore_empty: bool = False) -> FlattenReport:
    """:meth:`Codec.flatten_report <handoff_codec.Codec.flatten_report>` for ``codec``."""
    if trust not in ("any", "signed"):
        raise ValueError(f"trust must be 'any' or 'signed', not {trust!r}")
    if on_loss not in ("keep", "drop"):
        raise ValueError(f"on_loss must be 'keep' or 'drop', not {on_loss!r}")
    keys = codec._keys
    if trust == "signed" and not keys:
        raise ValueError("trust='signed' needs a Codec with key or verify_keys")
    flat: list[Item] = []
    decisions: list[TrustDecision] = []
    for index, item in enumerate(items):
        if codec.is_summary(message := as_text_message(item)):
            text = message["content"]
            if trust == "any":
                reason = Reason.EXPANDED
            else:
                from .signing import verify_text

                reason = Reason(verify_text(text, keys, codec._head_lines))
            if reason not in (Reason.EXPANDED, Reason.VERIFIED):
                decisions.append(TrustDecision(index, False, reason))
            else:
                try:
                    decoded = codec.decode(text)
                except DecodeError as exc:
                    decisions.append(TrustDecision(index, False, Reason.UNREADABLE, str(exc)))
                else:
                    found = tuple(decoded.recoveries)
                    # The lines an unrecognised recovery leaves out of every item, and
                    # those where the split into records may not be the writer's.
                    dropped = [str(r.line) for r in found if r.kind is RecoveryKind.UNRECOGNISED]
                    doubtful = [str(r.line) for r in found if r.kind is RecoveryKind.AMBIGUOUS]
                    if not (dropped or doubtful) or on_loss == "drop":
                        flat.extend(decoded.items)
                        decisions.append(TrustDecision(index, True, reason, "", found))
                        continue
                    detail = (f"line(s) {', '.join(dropped)} belong to no record" if dropped
                              else f"line(s) {', '.join(doubtful)}: the split into records "
                              "rests on no evidence of the writer (ambiguous)")
                    decisions.append(TrustDecision(index, False, Reason.LOSSY, detail, found))
        flat.append(copy.deepcopy(item if type(item) is dict else dict(item)))
    if not restore_empty:
        return FlattenReport(flat, decisions)
    from .placeholders import restore_empty_report

    restored = restore_empty_report(flat)
    return FlattenReport(restored.items, decisions, restored)


def flatten(codec: Codec, items: Iterable[Mapping[str, Any]], *, trust: Trust = "any",
            on_loss: OnLoss = "keep", restore_empty: bool = False) -> list[Item]:
    """:meth:`Codec.flatten <handoff_codec.Codec.flatten>` for ``codec``."""
    return flatten_report(codec, items, trust=trust, on_loss=on_loss,
                          restore_empty=restore_empty).items


def nest(codec: Codec, items: Iterable[Mapping[str, Any]]) -> list[Item]:
    """``[codec.summarize(codec.flatten(items))]``, the shape of a HandoffHistoryMapper."""
    return [codec.summarize(flatten_report(codec, items).items)]
