"""handoff-codec: a lossless, grammar-defined codec for nested handoff-history summaries.

    >>> import handoff_codec
    >>> text = handoff_codec.dumps([{"role": "user", "content": "hello"}])
    >>> handoff_codec.loads(text)
    [{'role': 'user', 'content': 'hello'}]

Module-level functions use a default :class:`Codec` with the Agents SDK's
preamble and markers; build your own ``Codec(start=..., end=...)`` for others.
"""

from __future__ import annotations

from .codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE, Codec
from .errors import DecodeError, EncodeError, ReplayError

__all__ = [
    "DEFAULT_END",
    "DEFAULT_PREAMBLE",
    "DEFAULT_START",
    "LEGACY_PREAMBLE",
    "Codec",
    "DecodeError",
    "EncodeError",
    "ReplayError",
    "default_codec",
    "dumps",
    "flatten",
    "loads",
    "nest",
    "summarize",
]

__version__ = "0.1.0"

default_codec = Codec()

dumps = default_codec.dumps
loads = default_codec.loads
summarize = default_codec.summarize
flatten = default_codec.flatten
nest = default_codec.nest
