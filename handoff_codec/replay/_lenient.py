"""Items as ``loads`` returns them, read for replay: null content, and ``name`` keys.

Writers disagree on ``None`` and ``""`` for a turn with no text (the Agents
SDK writes both as ``N. role: ``), so null or missing content is read as
``""``, and a tool output's as ``""`` too, each with a ``null-as-empty`` note.
A message's ``name`` key is taken out; what becomes of it depends on the
target's message shape (:func:`named`), and every change is noted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._chat import ROLES
from ._problems import Problem
from ._profiles import TEXT_PART_TYPES

__all__ = ["CHAT_NAME_RULE", "Names", "Reading", "chat_keeps", "inlined", "named", "read",
           "without_text"]

# OpenAI refuses other names: "Invalid 'messages[1].name': string does not match pattern.
# Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
# https://github.com/jekalmin/extended_openai_conversation/issues/251
_CHAT_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
CHAT_NAME_RULE = ("Chat Completions takes a name only on a user, assistant, system or "
                  "developer message, and only one matching ^[a-zA-Z0-9_-]+$ "
                  "(https://platform.openai.com/docs/api-reference/chat/create)")


Names = Literal["keep", "drop", "inline"]
"""What becomes of a message's ``name``: ``keep`` it where the target takes it (else drop it),
``drop`` it everywhere, or ``inline`` it everywhere as ``"[name] "`` in front of the text."""


@dataclass(frozen=True)
class Reading:
    """The items with null content read as ``""`` and names taken out, and what changed."""

    items: list[Any]
    notes: list[Problem]
    names: dict[int, Any]  # item index -> the name taken out of it


def _is_message(item: Mapping[str, Any]) -> bool:
    return item.get("role") in ROLES and item.get("type") in (None, "message")


def _is_output_message(item: Mapping[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "assistant" and "id" in item


def without_text(item: Any) -> bool:
    """Whether ``item`` is an assistant output message with no text and no refusal part."""
    return (isinstance(item, Mapping) and _is_output_message(item)
            and (item.get("content") == "" or isinstance(item.get("content"), list))
            and not any(isinstance(part, Mapping) and part.get("type") in ("output_text", "refusal")
                        for part in item["content"] or ()))


def read(items: Sequence[Any]) -> Reading:
    """``items`` (never modified) with null or missing content as ``""`` and names taken out."""
    out = list(items)
    notes: list[Problem] = []
    names: dict[int, Any] = {}
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call_output":
            key, what = "output", "tool output"
        elif _is_message(item):
            key, what = "content", f"{item['role']} content"
        else:
            continue
        fixed = dict(item)
        if fixed.get(key) is None and _is_output_message(item):
            fixed[key] = []  # no parts, as the SDK reads "" there
            notes.append(Problem(index=index, code="null-as-empty", severity="info",
                                 message="assistant output message content is null: read as "
                                         "an empty list of parts (no text)"))
        elif fixed.get(key) is None:
            state = "missing" if key not in item else "null"
            fixed[key] = ""
            notes.append(Problem(index=index, code="null-as-empty", severity="info",
                                 message=f"{what} is {state}: read as \"\" (no text)"))
        if key == "content" and "name" in fixed:
            names[index] = fixed.pop("name")
        if fixed != item:
            out[index] = fixed
    return Reading(items=out, notes=notes, names=names)


def named(reading: Reading, *, names: Names, why: str,
          keep: Callable[[Mapping[str, Any], Any], bool] = lambda item, name: False,
          ) -> tuple[list[Any], list[Problem], dict[int, str]]:
    """The items with each name kept, inlined or dropped as ``names`` says, the notes, the kept.

    ``keep(item, name)`` says whether the target takes ``name`` on that message
    as it is; with ``names="keep"`` those names are returned (item index ->
    name) for the caller to write, and need no note. ``why`` says why the
    target takes no such name: the end of each note on a name it does not take.
    """
    items = list(reading.items)
    notes: list[Problem] = []
    kept: dict[int, str] = {}
    for index, name in reading.names.items():
        item = items[index]
        taken = keep(item, name)
        reason = f"as --names {names} asks" if taken else why
        if taken and names == "keep":
            kept[index] = name
        elif names == "inline" and isinstance(name, str) and name:
            prefix = f"[{name}] "
            part_type = "output_text" if _is_output_message(item) else "input_text"
            items[index] = {**item, "content": inlined(item.get("content"), prefix, part_type)}
            notes.append(Problem(index=index, code="name-inlined", severity="info",
                                 message=f"name {name!r} moved into the text as {prefix!r}: "
                                         f"{reason}"))
        else:
            notes.append(Problem(index=index, code="name-dropped", severity="info",
                                 message=f"name {name!r} dropped: {reason}"))
    return items, notes, kept


def inlined(content: Any, prefix: str, part_type: str) -> Any:
    """``content`` with ``prefix`` in front of its first text; a text part of its own if none."""
    if content is None or (content == "" and part_type == "output_text"):
        content = [] if part_type == "output_text" else ""
    if isinstance(content, str):
        return prefix + content
    if isinstance(content, list):
        for number, part in enumerate(content):
            if isinstance(part, Mapping) and part.get("type") in TEXT_PART_TYPES:
                return [*content[:number], {**part, "text": prefix + str(part.get("text", ""))},
                        *content[number + 1:]]
        return [{"type": part_type, "text": prefix}, *content]
    return content


def chat_keeps(item: Mapping[str, Any], name: Any) -> bool:
    """Whether a Chat Completions message takes ``name`` as its own ``name`` field."""
    return (isinstance(name, str) and bool(_CHAT_NAME.match(name))
            and item.get("role") in ("user", "assistant", "system", "developer"))
