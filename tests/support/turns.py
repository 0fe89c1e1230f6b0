"""Which item lists make a request with no turn, which every target refuses (``no-messages``)."""

from __future__ import annotations

from typing import Any

from handoff_codec.replay import replayable, validate

NATIVE = ("anthropic", "gemini", "bedrock")


def turnless(items: list[Any], target: str = "chat_completions") -> bool:
    """Whether ``items`` convert to no message at all, or (for a native target) only to system
    and developer messages: a request every provider refuses."""
    report = validate(replayable(items))  # null content and names are no reason here
    if {problem.code for problem in report.errors} - {"no-messages"}:
        return False  # refused for another reason first
    messages = report.messages
    if not messages:
        return True
    return target in NATIVE and all(m["role"] in ("system", "developer") for m in messages)
