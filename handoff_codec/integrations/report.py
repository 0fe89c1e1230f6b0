"""What a framework conversion kept and what it could not: the report of ``encode``.

Every framework module has ``encode(messages, *, codec=None) -> Encoded``;
its ``dumps`` returns ``encode(...).text`` and logs one warning on the
``handoff_codec`` logger when something was omitted. Nothing a framework
object holds is dropped without an :class:`Omission` naming it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

__all__ = ["Encoded", "Omission", "warn_if_omitted"]

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


def warn_if_omitted(encoded: Encoded, framework: str) -> None:
    """One warning on the ``handoff_codec`` logger when ``encoded`` omitted something."""
    if encoded.omitted:
        fields = sorted({omission.field for omission in encoded.omitted})
        logger.warning("%s history summarized without %s (%d omission(s)); see encode()",
                       framework, ", ".join(fields), len(encoded.omitted))
