"""What a framework conversion kept and what it could not: the report of ``encode``.

Every framework module has ``encode(messages, *, codec=None) -> Encoded``;
its ``dumps`` returns ``encode(...).text`` and logs one warning on the
``handoff_codec`` logger when something was omitted. Nothing a framework
object holds is dropped without an :class:`Omission` naming it.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Encoded", "Omission", "ReadBack", "is_plain_json", "warn_if_dropped",
           "warn_if_omitted"]

M = TypeVar("M")

logger = logging.getLogger("handoff_codec")


@dataclass(frozen=True)
class Omission:
    """One thing a framework message held that the summary does not keep.

    ``index`` is the message's position in the list given to ``encode``;
    ``field`` names what was left out, as the framework spells it (an
    attribute, or a content part's kind); ``reason`` says why, in words.
    """

    index: int
    field: str
    reason: str


@dataclass(frozen=True)
class Encoded:
    """A summary text and everything the framework's messages held that it does not keep."""

    text: str
    omitted: tuple[Omission, ...] = ()

    @property
    def lossless(self) -> bool:
        """True when the summary keeps everything the messages held."""
        return not self.omitted


@dataclass(frozen=True)
class ReadBack(Generic[M]):
    """The messages a framework reads from a summary, and what of the summary it could not hold.

    Each framework module has ``read(text, *, codec=None) -> ReadBack``; its
    ``loads`` returns ``read(...).messages`` and logs one warning when
    ``omitted`` is not empty. Here an :class:`Omission`'s ``index`` is the
    item's position in the summary (its record number minus one), and
    ``field`` the item's key or value left out: another writer's key (ADK's
    ``event``, Agent Framework's ``same_message``...), a name where the
    framework holds none, a JSON tool result held as its JSON text.
    """

    messages: list[M]
    omitted: tuple[Omission, ...] = ()

    @property
    def lossless(self) -> bool:
        """True when the messages hold everything the summary's items held."""
        return not self.omitted


def warn_if_dropped(decoded: ReadBack[Any], framework: str) -> None:
    """One warning on the ``handoff_codec`` logger when ``decoded`` left something out."""
    _warn("%s messages read from a summary without %s (%d omission(s)); see read()",
          framework, decoded.omitted)


def warn_if_omitted(encoded: Encoded, framework: str) -> None:
    """One warning on the ``handoff_codec`` logger when ``encoded`` omitted something."""
    _warn("%s history summarized without %s (%d omission(s)); see encode()",
          framework, encoded.omitted)


def _warn(message: str, framework: str, omitted: tuple[Omission, ...]) -> None:
    """``message`` on the logger, with the framework, the fields left out and their count."""
    if omitted:
        fields = sorted({omission.field for omission in omitted})
        logger.warning(message, framework, ", ".join(fields), len(omitted))


def _dumped(encoded: Encoded, framework: str) -> str:
    """What a framework module's ``dumps`` returns: ``encoded.text``, after
    :func:`warn_if_omitted`."""
    warn_if_omitted(encoded, framework)
    return encoded.text


def _loaded(back: ReadBack[M], framework: str) -> list[M]:
    """What a framework module's ``loads`` returns: ``back.messages``, after
    :func:`warn_if_dropped`."""
    warn_if_dropped(back, framework)
    return back.messages


def is_plain_json(value: Any) -> bool:
    """Whether ``value`` reads back from JSON as it is: None, a str, bool, int or finite
    float, or a list or dict (str keys) of such values, each of exactly these types.

    A quick test before the walk that names each value JSON cannot keep.
    """
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(map(is_plain_json, value))
    if kind is dict:
        return all(type(key) is str for key in value) and all(map(is_plain_json,
                                                                  value.values()))
    return False
