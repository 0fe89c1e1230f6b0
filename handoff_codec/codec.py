"""``Codec``: one immutable configuration of preamble and markers, and its methods."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .report import Decoded

from .encoder import EMPTY_TRANSCRIPT, encode_records

__all__ = ["DEFAULT_END", "DEFAULT_PREAMBLE", "DEFAULT_START", "LEGACY_PREAMBLE", "Codec"]

DEFAULT_PREAMBLE = (
    "For context, here is the conversation so far between the user and the previous agent:"
)
LEGACY_PREAMBLE = "For context, here is the conversation so far:"
DEFAULT_START = "<CONVERSATION HISTORY>"
DEFAULT_END = "</CONVERSATION HISTORY>"

Item = dict[str, Any]


@dataclass(frozen=True)
class Codec:
    """Encoder and reader for one preamble and pair of markers.

    The defaults are the Agents SDK's. Instances are immutable and share the
    parsers built for equal configurations.
    """

    preamble: str = DEFAULT_PREAMBLE
    start: str = DEFAULT_START
    end: str = DEFAULT_END

    def __post_init__(self) -> None:
        for field in ("preamble", "start", "end"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value or "\n" in value:
                raise ValueError(f"Codec {field} must be a non-empty string without '\\n'")

    # ------------------------------------------------------------ writing
    def dumps(self, items: Iterable[Mapping[str, Any]]) -> str:
        """The summary text for a list of Responses-API input items."""
        records = encode_records(items) or [EMPTY_TRANSCRIPT]
        return "\n".join((self.preamble, self.start, *records, self.end))

    def summarize(self, items: Iterable[Mapping[str, Any]]) -> Item:
        """The assistant message that carries ``dumps(items)``."""
        return {"role": "assistant", "content": self.dumps(items)}

    # ------------------------------------------------------------ reading
    @property
    def _literals(self) -> tuple[tuple[str, str], ...]:
        return (("PREAMBLE", self.preamble), ("START_MARKER", self.start),
                ("END_MARKER", self.end))

    def loads(self, text: str, *, strict: bool = False) -> list[Item]:
        """The items of a summary.

        ``strict=True`` accepts only the current format. The default also reads
        every form written by openai-agents 0.6 to 0.19; :meth:`decode` says
        what it recovered.
        """
        if strict:
            from .reader import parse_strict

            _check_text(text)
            return parse_strict(text, self._literals)
        return self.decode(text).items

    def decode(self, text: str, *, strict: bool = False) -> Decoded:
        """Items plus a report: the writer generation and every recovery made."""
        from .legacy import parse_lenient
        from .report import Decoded, Format

        _check_text(text)
        if strict:
            items = self.loads(text, strict=True)
            return Decoded.model_construct(items=items, format=Format.CURRENT, recoveries=[])
        return parse_lenient(text, self._literals, self.start, self.end)

    def is_summary(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` is an assistant message wrapped in this codec's envelope."""
        if item.get("role") != "assistant":
            return False
        content = item.get("content")
        if not isinstance(content, str):
            return False
        first, newline, rest = content.partition("\n")
        return (
            bool(newline)
            and first in (self.preamble, LEGACY_PREAMBLE)
            and rest.startswith(self.start + "\n")
            and rest.endswith("\n" + self.end)
        )

    def flatten(self, items: Iterable[Mapping[str, Any]]) -> list[Item]:
        """Expand every summary message in place; copy every other item unchanged.

        A message that has the envelope but cannot be read is kept as it is:
        nothing is dropped and nothing is invented.
        """
        from .errors import DecodeError

        flat: list[Item] = []
        for item in items:
            if self.is_summary(item):
                try:
                    flat.extend(self.loads(item["content"]))
                    continue
                except DecodeError:
                    pass
            flat.append(copy.deepcopy(dict(item)))
        return flat

    def nest(self, items: Iterable[Mapping[str, Any]]) -> list[Item]:
        """``[summarize(flatten(items))]``, the shape of a HandoffHistoryMapper."""
        return [self.summarize(self.flatten(items))]


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"expected the summary as str, not {type(text).__name__}")
