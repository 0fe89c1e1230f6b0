"""Replay a recovered transcript to a model: conversion, validation, empty turns.

    >>> from handoff_codec import replay
    >>> replay.validate([{"role": "user", "content": "hi"}], target="anthropic").ok
    True
    >>> replay.to_provider([{"role": "user", "content": "hi"}], "anthropic").request
    {'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]}

* ``to_provider(items, target)``: the native request body for ``anthropic``,
  ``gemini``, ``bedrock`` or ``chat_completions`` from whatever ``loads``
  returns, with a note on every merge, null turn and name it changed;
* ``validate``/``replayable``: check, and minimally fix, items for a target;
* ``sanitize``: fix outgoing Chat Completions messages (``PROFILES``: each
  target's empty-content rules, with their public sources);
* ``restore_empty``: turn known empty-turn placeholders back into empty turns
  (``PLACEHOLDERS`` lists them with their sources);
* ``empty``: empty-turn signals (a leaked placeholder, a silent 0-token turn).

Nothing here imports a provider SDK until a conversion checks its types;
``restore_empty`` and ``empty`` import neither pydantic nor openai.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..format.placeholders import (
        PLACEHOLDERS,
        Placeholder,
        RestoreEmptyReport,
        restore_empty,
        restore_empty_report,
    )
    from . import empty
    from ._chat import to_chat_messages
    from ._native import Conversion
    from ._problems import Problem, Severity
    from ._profiles import PROFILES, TARGETS, Profile, sanitize
    from ._provider import PROVIDERS, to_provider
    from ._validate import ValidationReport, replayable, validate
    from .errors import ReplayError

_LAZY = {
    "empty": "handoff_codec.replay.empty",
    "to_chat_messages": "handoff_codec.replay._chat",
    "PROFILES": "handoff_codec.replay._profiles",
    "Profile": "handoff_codec.replay._profiles",
    "TARGETS": "handoff_codec.replay._profiles",
    "sanitize": "handoff_codec.replay._profiles",
    "Problem": "handoff_codec.replay._problems",
    "Severity": "handoff_codec.replay._problems",
    "Conversion": "handoff_codec.replay._native",
    "PLACEHOLDERS": "handoff_codec.format.placeholders",
    "Placeholder": "handoff_codec.format.placeholders",
    "RestoreEmptyReport": "handoff_codec.format.placeholders",
    "restore_empty": "handoff_codec.format.placeholders",
    "restore_empty_report": "handoff_codec.format.placeholders",
    "PROVIDERS": "handoff_codec.replay._provider",
    "ReplayError": "handoff_codec.replay.errors",
    "to_provider": "handoff_codec.replay._provider",
    "ValidationReport": "handoff_codec.replay._validate",
    "replayable": "handoff_codec.replay._validate",
    "validate": "handoff_codec.replay._validate",
}

__all__ = [
    "PLACEHOLDERS",
    "PROFILES",
    "PROVIDERS",
    "TARGETS",
    "Conversion",
    "Placeholder",
    "Problem",
    "Profile",
    "ReplayError",
    "RestoreEmptyReport",
    "Severity",
    "ValidationReport",
    "empty",
    "replayable",
    "restore_empty",
    "restore_empty_report",
    "sanitize",
    "to_chat_messages",
    "to_provider",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name == "RestoreReport":  # the name until 0.2.0.dev0; removed in the next release
        warnings.warn("handoff_codec.replay.RestoreReport is now RestoreEmptyReport",
                      DeprecationWarning, stacklevel=2)
        name = "RestoreEmptyReport"
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'handoff_codec.replay' has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
