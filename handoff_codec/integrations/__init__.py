"""Handoffs in each framework, one module a framework, each the same shape.

``openai_agents``, ``langgraph``, ``google_adk`` and ``agent_framework`` each
give ``dumps(messages)``/``loads(text)`` (the framework's own message objects
to one summary text and back, exactly) and the drop-in piece a user adds to
their app. Each module imports its framework when it is imported; this package
imports none.
"""

from __future__ import annotations

from .report import Encoded, Omission

__all__ = ["Encoded", "Omission"]
