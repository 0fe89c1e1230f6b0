"""The real openai-agents 0.24 implementation, used as the oracle in tests.

These are private functions of the SDK; the version is pinned in the test
extra so that the oracle cannot change under the tests.
"""

from __future__ import annotations

from typing import Any

from agents.handoffs.history import (
    _build_summary_message,
    _extract_nested_history_transcript,
    _flatten_nested_history_messages,
)

__all__ = ["sdk_flatten", "sdk_read", "sdk_summarize"]


def sdk_summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The SDK writer: the summary message for ``items``."""
    return dict(_build_summary_message(items))  # type: ignore[arg-type]


def sdk_read(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The SDK reader on one message: its items, or None if not a summary."""
    result = _extract_nested_history_transcript(message)  # type: ignore[arg-type]
    return None if result is None else [dict(item) for item in result]


def sdk_flatten(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The SDK's flatten over a transcript."""
    return [dict(item) for item in _flatten_nested_history_messages(items)]  # type: ignore[arg-type]
