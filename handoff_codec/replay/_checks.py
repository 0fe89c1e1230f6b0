"""Checks every replay path shares: tool-call pairing, and reading pydantic's verdicts.

Below both the validator (``_validate``) and the native converters
(``_native`` and the provider dialects), so neither has to import the other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._problems import Problem

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["drain", "first_error", "tool_call_problems"]


def tool_call_problems(messages: Sequence[Mapping[str, Any]], origins: Sequence[int],
                       items: Sequence[Any]) -> list[Problem]:
    """Every tool call answered by the tool messages right after it, and only those.

    Chat Completions: "An assistant message with 'tool_calls' must be followed
    by tool messages responding to each 'tool_call_id'"
    (https://github.com/BerriAI/litellm/issues/10083); Anthropic, Gemini and
    Bedrock need the answers in the next turn too. Call ids are unique, and
    each is answered once: "`tool_use` ids must be unique"
    (https://github.com/anthropics/claude-code/issues/20901).
    """
    call_origin = {item.get("call_id"): index for index, item in enumerate(items)
                   if isinstance(item, Mapping) and item.get("type") == "function_call"}
    calls: dict[Any, int] = {}  # tool call id -> item index, in order
    answered: set[Any] = set()
    waiting: dict[Any, int] = {}  # calls of the last assistant message not answered yet
    late: set[Any] = set()
    problems: list[Problem] = []
    seen: set[Any] = set()
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("type") == "function_call":
            if item.get("call_id") in seen:
                problems.append(Problem(index=index, code="duplicate-tool-call-id",
                                        message=f"tool call id {item.get('call_id')!r} "
                                                "is used by an earlier call"))
            seen.add(item.get("call_id"))
    for message, origin in zip(messages, origins, strict=True):
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in calls:
                problems.append(Problem(
                    index=origin, code="orphan-tool-output",
                    message=f"tool output {call_id!r} answers no earlier tool call"))
            elif call_id in answered:
                problems.append(Problem(
                    index=origin, code="duplicate-tool-output",
                    message=f"tool call {call_id!r} is answered more than once"))
            else:
                answered.add(call_id)
                waiting.pop(call_id, None)
            continue
        late.update(waiting)
        waiting = {}
        for call in message.get("tool_calls") or ():
            call_id = call.get("id")
            calls.setdefault(call_id, call_origin.get(call_id, origin))
            waiting[call_id] = calls[call_id]
    for call_id, origin in calls.items():
        if call_id not in answered:
            problems.append(Problem(index=origin, code="unanswered-tool-call",
                                    message=f"tool call {call_id!r} has no tool output"))
        elif call_id in late:
            problems.append(Problem(
                index=origin, code="tool-call-answered-late",
                message=f"tool call {call_id!r} is answered after another message; its "
                        "output must come in the tool messages right after the call"))
    return problems


def drain(value: Any) -> None:
    """Run pydantic's lazy validation of every ``Iterable`` field (an iterator)."""
    if isinstance(value, Iterator):
        for element in value:
            drain(element)
    elif isinstance(value, Mapping):
        for element in value.values():
            drain(element)
    elif isinstance(value, list):
        for element in value:
            drain(element)


def first_error(exc: ValidationError) -> str:
    """The deepest error of a pydantic union: the one from the alternative that fit best."""
    error = max(exc.errors(), key=lambda error: len(error["loc"]))
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])
