"""``to_provider``: items to the request body a provider's own API takes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

from .._errors import ReplayError
from ._native import Conversion, Dialect, convert

__all__ = ["PROVIDERS", "Provider", "dialect_for", "to_provider"]

Provider = Literal["chat_completions", "anthropic", "gemini", "bedrock"]
PROVIDERS: tuple[Provider, ...] = get_args(Provider)
CHAT_SCHEMA = "openai.types.chat.ChatCompletionMessageParam"


def dialect_for(target: str) -> Dialect | None:
    """The native dialect of ``target``; None for ``chat_completions``; else ValueError."""
    if target == "anthropic":
        from ._anthropic import Anthropic

        return Anthropic()
    if target == "gemini":
        from ._gemini import Gemini

        return Gemini()
    if target == "bedrock":
        from ._bedrock import Bedrock

        return Bedrock()
    if target == "chat_completions":
        return None
    raise ValueError(f"unknown target {target!r}; expected one of {', '.join(PROVIDERS)}")


def to_provider(items: str | Iterable[Mapping[str, Any]], target: str, *,
                placeholder: str | None = None) -> Conversion:
    """Convert Responses-API input items to ``target``'s own request body.

    Targets: ``anthropic`` (Messages API), ``gemini`` (``generateContent``),
    ``bedrock`` (Converse) and ``chat_completions``. Returns a
    :class:`Conversion`: ``.request`` is the body (turns and system prompt),
    ``.notes`` says each merge, moved system message, filled empty turn and
    dropped reasoning item, naming the item. An empty turn the target rejects
    carries ``placeholder`` (default ``"."``, which ``restore_empty``
    recognises). Reasoning items are always dropped with a note: another
    provider's reasoning is never replayed as text.

    Raises :class:`~handoff_codec.ReplayError` naming the item index for
    anything the target cannot take (an unanswered tool call, an audio part
    for Anthropic, an OpenAI file id, ...); it never drops a turn silently.
    The body is validated against the provider SDK's own types when that SDK
    is installed (``.checked_with`` says which).
    """
    dialect = dialect_for(target)
    if dialect is not None:
        return convert(items, dialect, placeholder=placeholder)
    from ._validate import validate

    report = validate(items, target="chat_completions")
    for problem in report.errors:
        raise ReplayError(problem.message, index=problem.index or 0)
    return Conversion(target=target, request={"messages": report.messages},
                      notes=report.problems, checked_with=CHAT_SCHEMA)
