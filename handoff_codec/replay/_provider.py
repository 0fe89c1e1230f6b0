"""``to_provider``: items to the request body a provider's own API takes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ._lenient import Names, named, read, without_text
from ._native import Conversion, convert
from ._problems import Problem
from ._profiles import check_placeholder, profile_for
from ._targets import PROVIDERS, Provider, dialect_for
from ._validate import replayable, validated
from .errors import ReplayError

__all__ = ["PROVIDERS", "Provider", "dialect_for", "to_provider"]

CHAT_SCHEMA = "openai.types.chat.ChatCompletionMessageParam"
# OpenAI refuses other names: "Invalid 'messages[1].name': string does not match pattern.
# Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
# https://github.com/jekalmin/extended_openai_conversation/issues/251
_CHAT_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_CHAT_SHAPE = ("a Chat Completions message takes a name matching ^[a-zA-Z0-9_-]+$ "
               "(https://platform.openai.com/docs/api-reference/chat/create)")
_MISTRAL_SHAPE = ("a Mistral user, assistant or system message is role and content only "
                  "(https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post)")


def to_provider(items: str | Iterable[Mapping[str, Any]], target: str, *,
                placeholder: str | None = None, names: Names = "drop") -> Conversion:
    """Convert Responses-API input items to ``target``'s own request body.

    Targets: ``anthropic`` (Messages API), ``gemini`` (``generateContent``),
    ``bedrock`` (Converse), ``chat_completions`` and ``mistral`` (Chat
    Completions messages with Mistral's rules: no ``name``, and an empty
    assistant turn carries the placeholder). Returns a
    :class:`Conversion`: ``.request`` is the body (turns and system prompt),
    ``.notes`` says each merge, moved system message, filled empty turn and
    dropped reasoning item, naming the item. Takes what ``loads`` returns:
    null or missing content is read as ``""`` (``null-as-empty``), and a
    message's ``name`` is kept where the target's message has one (Chat
    Completions, for a name OpenAI accepts), else dropped (``name-dropped``)
    or, with ``names="inline"``, written in front of the text as ``"[name] "``
    (``name-inlined``). Runs of one role are merged first; only a turn still
    empty carries ``placeholder`` (default ``"."``, which ``restore_empty``
    recognises). Reasoning items are always dropped with a note: another
    provider's reasoning is never replayed as text.

    Raises :class:`~handoff_codec.replay.ReplayError` naming the item index for
    anything the target cannot take (an unanswered tool call, an audio part
    for Anthropic, an OpenAI file id, ...); it never drops a turn silently.
    The body is validated against the provider SDK's own types when that SDK
    is installed (``.checked_with`` says which).
    """
    if names not in ("drop", "inline"):
        raise ValueError(f"names must be 'drop' or 'inline', not {names!r}")
    dialect = dialect_for(target)
    if dialect is not None:
        return convert(items, dialect, placeholder=placeholder, names=names)
    listed: list[Any] = ([{"role": "user", "content": items}] if isinstance(items, str)
                         else list(items))
    reading = read(listed)
    mistral = target == "mistral"
    readable, name_notes, kept = named(
        reading, names=names, provider="Mistral" if mistral else "Chat Completions",
        why=_MISTRAL_SHAPE if mistral else _CHAT_SHAPE,
        keep=(lambda item, name: False) if mistral else _chat_keeps)
    notes = [*reading.notes, *name_notes]
    for index, item in enumerate(readable):
        if without_text(item):  # Chat Completions needs content here, and takes ""
            readable[index] = {**item, "content": [*(item["content"] or ()),
                                                   {"type": "output_text", "text": ""}]}
            notes.append(Problem(index=index, code="empty-turn", severity="info",
                                 message="assistant output message with no text: sent with "
                                         "content \"\", as Chat Completions needs content"))
    if mistral:
        readable, filled = _filled(readable, target, placeholder)
        notes += filled
    report, origins = validated(readable, target=target)
    for problem in report.errors:
        raise ReplayError(problem.message, index=problem.index, code=problem.code)
    messages = report.messages
    if kept:
        messages = [{**message, "name": kept[origin]} if origin in kept else message
                    for message, origin in zip(messages, origins, strict=True)]
    notes = sorted([*notes, *report.problems],
                   key=lambda note: -1 if note.index is None else note.index)
    return Conversion(target=target, request={"messages": messages}, notes=notes,
                      checked_with=CHAT_SCHEMA)


def _filled(items: list[Any], target: str, placeholder: str | None,
            ) -> tuple[list[Any], list[Problem]]:
    """``items`` with the empty text ``target`` rejects filled with the placeholder, and a
    note for each item filled."""
    filler = check_placeholder(profile_for(target), placeholder)
    fixed = replayable(items, target=target, placeholder=filler)
    provider = profile_for(target).provider
    notes = [Problem(index=index, code="empty-turn", severity="info",
                     message=f"{item.get('role')} turn with no text: {provider} rejects empty "
                             f"text, so it carries the placeholder {filler!r}")
             for index, (item, new) in enumerate(zip(items, fixed, strict=True)) if new != item]
    return list(fixed), notes


def _chat_keeps(item: Mapping[str, Any], name: Any) -> bool:
    """Whether a Chat Completions message takes ``name`` as its own ``name`` field."""
    return (isinstance(name, str) and bool(_CHAT_NAME.match(name))
            and item.get("role") in ("user", "assistant", "system", "developer"))
