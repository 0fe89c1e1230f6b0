"""``to_provider``: items to the request body a provider's own API takes."""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

from ._lenient import CHAT_NAME_RULE, Names, chat_keeps, named, read, without_text
from ._native import Conversion, convert
from ._problems import Problem
from ._profiles import check_placeholder, profile_for
from ._targets import PROVIDERS, Provider, dialect_for
from ._validate import replayable, validated
from .errors import ReplayError

__all__ = ["PROVIDERS", "Provider", "dialect_for", "to_provider"]

CHAT_SCHEMA = "openai.types.chat.ChatCompletionMessageParam"
_MISTRAL_SHAPE = ("Mistral takes no name on a message: a user, assistant or system message is "
                  "role and content only (https://docs.mistral.ai/api/#tag/chat/operation/"
                  "chat_completion_v1_chat_completions_post)")


def to_provider(items: str | Iterable[Mapping[str, Any]], target: str, *,
                placeholder: str | None = None, names: Names = "keep") -> Conversion:
    """Convert Responses-API input items to ``target``'s own request body.

    Targets: ``anthropic`` (Messages API), ``gemini`` (``generateContent``),
    ``bedrock`` (Converse), ``chat_completions`` and ``mistral`` (Chat
    Completions messages with Mistral's rules: no ``name``, and an empty
    assistant turn carries the placeholder). Returns a
    :class:`Conversion`: ``.request`` is the body (turns and system prompt),
    ``.notes`` says each merge, moved system message, filled empty turn and
    dropped reasoning item, naming the item. Takes what ``loads`` returns:
    null or missing content is read as ``""`` (``null-as-empty``). A message's
    ``name`` is kept where the target's message has one (Chat Completions, for
    a name OpenAI accepts) and dropped elsewhere (``name-dropped``); with
    ``names="drop"`` it is dropped on every target, and with ``names="inline"``
    it is written in front of the text as ``"[name] "`` on every target
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
    if names not in ("keep", "drop", "inline"):
        raise ValueError(f"names must be 'keep', 'drop' or 'inline', not {names!r}")
    dialect = dialect_for(target)
    if dialect is not None:
        return convert(items, dialect, placeholder=placeholder, names=names)
    listed: list[Any] = ([{"role": "user", "content": items}] if isinstance(items, str)
                         else list(items))
    reading = read(listed)
    mistral = target == "mistral"
    readable, name_notes, kept = named(
        reading, names=names, why=_MISTRAL_SHAPE if mistral else CHAT_NAME_RULE,
        keep=(lambda item, name: False) if mistral else chat_keeps)
    notes = [*reading.notes, *name_notes]
    for index, item in enumerate(readable):
        if without_text(item):  # Chat Completions needs content here, and takes ""
            readable[index] = {**item, "content": [*(item["content"] or ()),
                                                   {"type": "output_text", "text": ""}]}
            notes.append(Problem(index=index, code="empty-turn", severity="info",
                                 message="assistant output message with no text: sent with "
                                         "content \"\", as Chat Completions needs content"))
    for index, item in enumerate(readable):
        if (not mistral and isinstance(item, Mapping) and item.get("content") == []
                and item.get("role") in ("user", "system", "developer", "assistant")
                and item.get("type") in (None, "message") and not without_text(item)):
            readable[index] = {**item, "content": ""}  # what replayable() writes
            notes.append(Problem(index=index, code="empty-turn", severity="info",
                                 message=f"{item['role']} content is an empty list, which Chat "
                                         "Completions refuses: sent as \"\""))
    if mistral:
        readable, filled = _filled(readable, target, placeholder)
        readable, rewritten = _mistral_ids(readable)
        notes += filled + rewritten
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



# Mistral: "Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9"
# (https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py).
# mistralai is not a dependency: this rule is the documented one.
_MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
_ALPHABET = string.ascii_letters + string.digits


def _mistral_ids(items: list[Any]) -> tuple[list[Any], list[Problem]]:
    """``items`` with every tool call id as Mistral takes it, the same in each call and its
    output, and a note (a repair) for each id rewritten."""
    calls = [item for item in items if isinstance(item, Mapping)
             and item.get("type") in ("function_call", "function_call_output")
             and isinstance(item.get("call_id"), str)]
    taken = {item["call_id"] for item in calls if _MISTRAL_ID.match(item["call_id"])}
    ids: dict[str, str] = {}
    notes: list[Problem] = []
    out = list(items)
    for index, item in enumerate(items):
        if not any(item is call for call in calls) or _MISTRAL_ID.match(item["call_id"]):
            continue
        call_id = item["call_id"]
        if call_id not in ids:
            ids[call_id] = _mistral_id(call_id, taken)
            taken.add(ids[call_id])
            notes.append(Problem(index=index, code="tool-id-rewritten", severity="info",
                                 message=f"tool call id {call_id!r} written as {ids[call_id]!r}: "
                                         "Mistral takes only 9 letters or digits"))
        out[index] = {**item, "call_id": ids[call_id]}
    return out, notes


def _mistral_id(call_id: str, taken: set[str]) -> str:
    """A 9-character id derived from ``call_id`` (the same every run), not in ``taken``."""
    for attempt in range(1000):
        digest = hashlib.sha256(f"{attempt}:{call_id}".encode()).digest()
        new = "".join(_ALPHABET[byte % len(_ALPHABET)] for byte in digest[:9])
        if new not in taken:
            return new
    raise AssertionError("no free tool call id")  # 62**9 ids: unreachable
