"""The targets of ``to_provider``, and the :class:`~._dialect.Dialect` of each native one.

Each provider module is imported only when its target is asked for.
"""

from __future__ import annotations

from typing import Literal, get_args

from ._dialect import Dialect

__all__ = ["PROVIDERS", "Provider", "dialect_for"]

Provider = Literal["chat_completions", "anthropic", "gemini", "bedrock", "mistral"]
PROVIDERS: tuple[Provider, ...] = get_args(Provider)
"""The targets ``to_provider`` converts to: Chat Completions and each native request body."""


def dialect_for(target: str) -> Dialect | None:
    """The native dialect of ``target``; None for the Chat Completions shape
    (``chat_completions``, ``mistral``); else ValueError."""
    if target == "anthropic":
        from ._anthropic import Anthropic

        return Anthropic()
    if target == "gemini":
        from ._gemini import Gemini

        return Gemini()
    if target == "bedrock":
        from ._bedrock import Bedrock

        return Bedrock()
    if target in ("chat_completions", "mistral"):
        return None
    raise ValueError(f"unknown target {target!r}; expected one of {', '.join(PROVIDERS)}")
