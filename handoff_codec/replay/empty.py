"""Empty-turn signals: a leaked placeholder, and a silent 0-token turn.

* :func:`visible_text` is the prose a user would see in a turn's content.
* :func:`is_leaked_sentinel` spots a harness placeholder such as ``(empty)``
  that a model echoed back in front of its own notes, so the turn is not
  mistaken for an answer.
* :func:`classify_turn` tells a silent failure (``end_turn`` with 0 output
  tokens and nothing to show) from a turn that only thought, an error and a
  normal answer.

Standard library only: importing this module loads neither pydantic nor openai.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from ..format.placeholders import (
    HIDDEN_PART_TYPES,
    SENTINEL,
    is_leaked_sentinel,
    visible_text,
)

__all__ = [
    "HIDDEN_PART_TYPES",
    "SENTINEL",
    "TurnKind",
    "classify_turn",
    "is_leaked_sentinel",
    "output_tokens",
    "visible_text",
]

# Stop reasons that mean "the model ended its turn normally".
NORMAL_STOPS = frozenset({"end_turn", "stop"})


class TurnKind(str, enum.Enum):
    """How a finished turn should be treated."""

    ERROR = "error"
    SILENT_FAILURE = "silent_failure"
    THOUGHT_ONLY = "thought_only"
    OK = "ok"


def output_tokens(usage: Any) -> int | None:
    """Output tokens from ``usage`` in ACP (camelCase) or OpenAI (snake_case) form.

    Reads ``outputTokens``, ``output_tokens`` or ``completion_tokens`` from a
    mapping or an object; None when usage or the count is absent or not an int.
    """
    if usage is None:
        return None
    for key in ("outputTokens", "output_tokens", "completion_tokens"):
        value = usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def classify_turn(*, stop_reason: str | None, usage: Any, body: Any,
                  error: Any = None) -> TurnKind:
    """Classify a finished turn.

    * any ``error`` (not None) wins: ``ERROR``;
    * visible text in ``body``: ``OK``;
    * ``end_turn`` (or ``stop``) with 0 output tokens and nothing visible:
      ``SILENT_FAILURE``, most likely a provider, auth or config failure;
    * anything else with nothing visible, including absent usage:
      ``THOUGHT_ONLY``. Absent usage is never a failure.
    """
    if error is not None:
        return TurnKind.ERROR
    if visible_text(body).strip():
        return TurnKind.OK
    if isinstance(stop_reason, str) and stop_reason in NORMAL_STOPS and output_tokens(usage) == 0:
        return TurnKind.SILENT_FAILURE
    return TurnKind.THOUGHT_ONLY
