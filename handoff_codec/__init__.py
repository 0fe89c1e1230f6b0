"""handoff-codec: a lossless, grammar-defined codec for nested handoff-history summaries.

    >>> import handoff_codec
    >>> text = handoff_codec.dumps([{"role": "user", "content": "hello"}])
    >>> handoff_codec.loads(text)
    [{'role': 'user', 'content': 'hello'}]

The codec: ``dumps``/``loads`` (json-style), ``decode`` (items plus a report of
what a lenient read recovered), ``summarize``/``flatten``/``nest`` (whole
messages), and ``Codec`` for other preambles, markers, limits or signing keys.
The module functions use ``default_codec``, the Agents SDK's envelope.

Elsewhere: ``handoff_codec.replay`` (replay to a model), ``handoff_codec.migrate``
(migrate stores), ``handoff_codec.agents`` (the Agents SDK integration).
"""

from __future__ import annotations

from typing import Any

from . import _compat
from ._codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE, Codec
from ._errors import DecodeError, DecodeReason, EncodeError, ReplayError
from ._flatten import FlattenReport, Reason, TrustDecision
from ._report import Decoded, Format, Recovery, RecoveryKind

__all__ = [
    "DEFAULT_END",
    "DEFAULT_PREAMBLE",
    "DEFAULT_START",
    "LEGACY_PREAMBLE",
    "Codec",
    "DecodeError",
    "DecodeReason",
    "Decoded",
    "EncodeError",
    "FlattenReport",
    "Format",
    "Reason",
    "Recovery",
    "RecoveryKind",
    "ReplayError",
    "TrustDecision",
    "decode",
    "default_codec",
    "dumps",
    "flatten",
    "loads",
    "nest",
    "summarize",
]

__version__ = "0.2.0.dev0"

default_codec = Codec()

decode = default_codec.decode
dumps = default_codec.dumps
loads = default_codec.loads
summarize = default_codec.summarize
flatten = default_codec.flatten
nest = default_codec.nest

_compat.install()


def __getattr__(name: str) -> Any:
    if name in _compat.MOVED_NAMES:
        return _compat.moved_name(name)  # not cached: warn on every use
    raise AttributeError(f"module 'handoff_codec' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
