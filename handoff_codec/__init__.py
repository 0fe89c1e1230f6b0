"""handoff-codec: a lossless, grammar-defined codec for nested handoff-history summaries.

    >>> import handoff_codec
    >>> text = handoff_codec.dumps([{"role": "user", "content": "hello"}])
    >>> handoff_codec.loads(text)
    [{'role': 'user', 'content': 'hello'}]

Module-level functions use a default :class:`Codec` with the Agents SDK's
preamble and markers; build your own ``Codec(start=..., end=...)`` for others.
"""

from __future__ import annotations

import importlib
from typing import Any

from .codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE, Codec
from .errors import DecodeError, EncodeError, ReplayError

# Public names defined in modules that import pydantic or openai. They load
# on first use, so `import handoff_codec` stays fast.
_LAZY: dict[str, str] = {
    "to_chat_messages": "handoff_codec.chat",
    "validate": "handoff_codec.validation",
    "replayable": "handoff_codec.validation",
    "ValidationReport": "handoff_codec.validation",
    "Problem": "handoff_codec.validation",
    "sanitize": "handoff_codec.providers",
    "empty": "handoff_codec.empty",  # a submodule
    "migrate_item": "handoff_codec.migrate",
    "migrate_items": "handoff_codec.migrate",
    "MigrationResult": "handoff_codec.migrate",
    "MigrationStatus": "handoff_codec.migrate",
    "Decoded": "handoff_codec.report",
    "Format": "handoff_codec.report",
    "Recovery": "handoff_codec.report",
    "RecoveryKind": "handoff_codec.report",
}

__all__ = [
    "DEFAULT_END",
    "DEFAULT_PREAMBLE",
    "DEFAULT_START",
    "LEGACY_PREAMBLE",
    "Codec",
    "DecodeError",
    "EncodeError",
    "ReplayError",
    "decode",
    "default_codec",
    "dumps",
    "flatten",
    "loads",
    "nest",
    "summarize",
    *_LAZY,
]

__version__ = "0.1.0"

default_codec = Codec()

decode = default_codec.decode
dumps = default_codec.dumps
loads = default_codec.loads
summarize = default_codec.summarize
flatten = default_codec.flatten
nest = default_codec.nest


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'handoff_codec' has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
