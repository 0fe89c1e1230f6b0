"""Flattening: every summary message of a conversation expanded into its items.

``Codec.flatten``, ``flatten_report`` and ``nest`` call these functions with
the codec, whose reader, envelope and keys they use. Each summary message gets
a :class:`TrustDecision`: whether it was expanded, and the :class:`Reason`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum

from .content import as_text_message
from .errors import DecodeError
from .report import RecoveryKind
from .write import not_a_list

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from typing import Any, Literal

    from .codec import Codec
    from .report import Recovery

    Trust = Literal["any", "signed"]
    OnLoss = Literal["keep", "drop"]

__all__ = ["FlattenReport", "OnLoss", "Reason", "Trust", "TrustDecision", "flatten",
           "flatten_report", "nest"]

Item = dict[str, "Any"]


class Reason(str, Enum):
    """Why a summary message was, or was not, expanded by ``flatten``."""

    EXPANDED = "expanded"  # trust="any": read without checking a signature
    VERIFIED = "verified"  # trust="signed": the signature verifies under a key
    UNSIGNED = "unsigned"  # trust="signed": no signature line; kept as a message
    BAD_SIGNATURE = "bad signature"  # a signature line that no key verifies
    UNREADABLE = "unreadable"  # has the envelope but could not be decoded
    LOSSY = "lossy"  # on_loss="keep": it would drop a line or split ambiguously; kept


class TrustDecision:
    """What ``flatten`` did with the summary message at ``index`` of its input.

    ``recoveries`` are the lenient reader's, for a message it read.
    """

    __slots__ = ("detail", "expanded", "index", "reason", "recoveries")

    def __init__(self, index: int, expanded: bool, reason: Reason, detail: str = "",
                 recoveries: tuple[Recovery, ...] = ()) -> None:
        self.index, self.expanded, self.reason = index, expanded, reason
        self.detail, self.recoveries = detail, recoveries

    def at(self, index: int) -> TrustDecision:
        """The same decision, for the message at ``index``."""
        return TrustDecision(index, self.expanded, self.reason, self.detail, self.recoveries)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrustDecision):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"TrustDecision(index={self.index!r}, expanded={self.expanded!r}, "
                f"reason={self.reason!r}, detail={self.detail!r}, "
                f"recoveries={self.recoveries!r})")


class FlattenReport:
    """The flattened items, and one decision per message that had the envelope.

    With ``flatten(restore_empty=True)``, ``placeholders`` is the
    :class:`~handoff_codec.format.placeholders.RestoreEmptyReport`.
    """

    __slots__ = ("decisions", "items", "placeholders")

    def __init__(self, items: list[Item], decisions: list[TrustDecision] | None = None,
                 placeholders: Any = None) -> None:
        self.items, self.decisions = items, [] if decisions is None else decisions
        self.placeholders = placeholders

    def __repr__(self) -> str:
        return (f"FlattenReport(items={self.items!r}, decisions={self.decisions!r}, "
                f"placeholders={self.placeholders!r})")

    @property
    def kept(self) -> list[TrustDecision]:
        """The decisions for summary messages left unexpanded."""
        return [d for d in self.decisions if not d.expanded]


def flatten_report(codec: Codec, items: Iterable[Mapping[str, Any]], *, trust: Trust = "any",
                   on_loss: OnLoss = "keep", restore_empty: bool = False,
                   caller: str = "flatten") -> FlattenReport:
    """:meth:`Codec.flatten_report <handoff_codec.Codec.flatten_report>` for ``codec``;
    ``caller`` names the function in what a wrong argument raises."""
    if trust not in ("any", "signed"):
        raise ValueError(f"trust must be 'any' or 'signed', not {trust!r}")
    if on_loss not in ("keep", "drop"):
        raise ValueError(f"on_loss must be 'keep' or 'drop', not {on_loss!r}")
    keys = codec._keys
    if trust == "signed" and not keys:
        raise ValueError("trust='signed' needs a Codec with key or verify_keys")
    if isinstance(items, (Mapping, str, bytes)) or not isinstance(items, Iterable):
        raise TypeError(f"{caller}: {not_a_list(items)}")
    from copy import deepcopy  # here: the first read need not import copy and weakref

    flat: list[Item] = []
    decisions: list[TrustDecision] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TypeError(f"{caller}: item {index} is a {type(item).__name__}, not a mapping "
                            '(an item is a dict such as {"role": "user", "content": "hi"})')
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
                              else f"line(s) {', '.join(doubtful)}: two readings of the text "
                              "remain (ambiguous); decode gives the other as a candidate")
                    decisions.append(TrustDecision(index, False, Reason.LOSSY, detail, found))
        flat.append(deepcopy(item if type(item) is dict else dict(item)))
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
    return [codec.summarize(flatten_report(codec, items, caller="nest").items)]
