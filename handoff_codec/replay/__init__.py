"""Replay a recovered transcript to a model: conversion, validation, empty turns.

    >>> from handoff_codec import replay
    >>> replay.validate([{"role": "user", "content": "hi"}], target="anthropic").ok
    True

Converting and validating import pydantic and openai, on first use;
``handoff_codec.replay.empty`` (empty-turn signals) imports neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import empty
    from ._chat import to_chat_messages
    from ._profiles import TARGETS, sanitize
    from ._validate import Problem, ValidationReport, replayable, validate

_LAZY = {
    "empty": "handoff_codec.replay.empty",
    "to_chat_messages": "handoff_codec.replay._chat",
    "TARGETS": "handoff_codec.replay._profiles",
    "sanitize": "handoff_codec.replay._profiles",
    "Problem": "handoff_codec.replay._validate",
    "ValidationReport": "handoff_codec.replay._validate",
    "replayable": "handoff_codec.replay._validate",
    "validate": "handoff_codec.replay._validate",
}

__all__ = [
    "TARGETS",
    "Problem",
    "ValidationReport",
    "empty",
    "replayable",
    "sanitize",
    "to_chat_messages",
    "validate",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'handoff_codec.replay' has no attribute {name!r}")
    imported = importlib.import_module(module)
    value = imported if module == f"{__name__}.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
