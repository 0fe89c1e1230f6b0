"""A scripted model for offline Google ADK runs: no network, no API key.

``ScriptedLlm`` is a real ``google.adk.models.BaseLlm``: it answers each
request with the next content of its ``script`` and records what it was sent
(a copy: later steps may change the request). ``call`` builds a function-call
part. Used by ``examples/google_adk_handoff.py``, the tests and the benchmark.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from google.adk.models import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


@dataclass
class Sent:
    """What one request to the model held."""

    contents: list[types.Content]
    system_instruction: str


class ScriptedLlm(BaseLlm):
    """Answers each request with the next content of ``script``; records it in ``sent``."""

    script: list[types.Content] = Field(default_factory=list)
    sent: list[Sent] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.sent.append(Sent([content.model_copy(deep=True) for content in llm_request.contents],
                              str(llm_request.config.system_instruction or "")))
        yield LlmResponse(content=self.script.pop(0))


def call(name: str, args: dict[str, Any], call_id: str) -> types.Part:
    """A function-call part: the model calls tool ``name`` with ``args``."""
    return types.Part(function_call=types.FunctionCall(name=name, args=args, id=call_id))
