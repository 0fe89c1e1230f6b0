"""A scripted model for offline Google ADK runs: no network, no API key.

``ScriptedLlm`` is a real ``google.adk.models.BaseLlm``: it answers each
request with the next content of its ``script`` (or with what ``reply``
makes of the request) and records what it was sent (a copy: later steps may
change the request). With ``metadata=True`` each answer carries what a real
Gemini response attaches: usage, model version, finish reason, log
probability and a thought signature on its first part. ``call`` builds a
function-call part; ``chain_agents`` the agents of a chain of handoffs. Used
by ``examples/google_adk_handoff.py``, the tests and the benchmark.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from google.adk.agents import LlmAgent
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
    reply: Callable[[LlmRequest], types.Content] | None = None
    metadata: bool = False

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.sent.append(Sent([content.model_copy(deep=True) for content in llm_request.contents],
                              str(llm_request.config.system_instruction or "")))
        await asyncio.sleep(0)  # let other conversations run in between, as a network call does
        content = self.reply(llm_request) if self.reply is not None else self.script.pop(0)
        yield with_metadata(content, len(self.sent)) if self.metadata else LlmResponse(
            content=content)


def with_metadata(content: types.Content, number: int) -> LlmResponse:
    """The response a Gemini model gives with ``content``: usage, version, a thought signature."""
    parts = [part.model_copy() for part in content.parts or []]
    if parts:  # Gemini signs the first part of a turn that thought
        parts[0].thought_signature = hashlib.sha512(f"{number}".encode()).digest() * 3
    return LlmResponse(
        content=types.Content(role=content.role, parts=parts),
        model_version="gemini-2.5-flash-preview-09-2025",
        finish_reason=types.FinishReason.STOP,
        avg_logprobs=-0.4213 - number / 1000,
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=1200 + number, candidates_token_count=48 + number,
            thoughts_token_count=211, total_token_count=1459 + 2 * number,
            prompt_tokens_details=[types.ModalityTokenCount(
                modality=types.MediaModality.TEXT, token_count=1200 + number)]),
    )


def call(name: str, args: dict[str, Any], call_id: str) -> types.Part:
    """A function-call part: the model calls tool ``name`` with ``args``."""
    return types.Part(function_call=types.FunctionCall(name=name, args=args, id=call_id))


def lookup(order: int) -> dict[str, Any]:
    """An order's status."""
    return {"order": order, "status": "shipped", "carrier": "UPS", "eta_days": order % 3 + 1}


def chain_agents(hops: int, *, metadata: bool = False) -> tuple[LlmAgent, dict[str, ScriptedLlm]]:
    """The agents of ``hops`` handoffs, agent_0 -> agent_1 -> ... -> agent_<hops>, and their models.

    Each agent but the last says a line, looks an order up (``lookup``), says
    another line and transfers to the next; the last answers.
    """
    models: dict[str, ScriptedLlm] = {}
    agent: LlmAgent | None = None
    for number in range(hops, -1, -1):
        name = f"agent_{number}"
        if agent is None:
            script = [types.Content(role="model", parts=[types.Part(text="All done.")])]
        else:
            script = [
                types.Content(role="model", parts=[
                    types.Part(text=f"{name} checking order {number}."),
                    call("lookup", {"order": number}, f"call-{number}-lookup")]),
                types.Content(role="model", parts=[
                    types.Part(text=f"Order {number} shipped; passing to {agent.name}."),
                    call("transfer_to_agent", {"agent_name": agent.name},
                         f"call-{number}-transfer")])]
        models[name] = ScriptedLlm(model=f"scripted-{name}", script=script, metadata=metadata)
        agent = LlmAgent(name=name, model=models[name], tools=[lookup] if number < hops else [],
                         sub_agents=[agent] if agent is not None else [])
    assert agent is not None
    return agent, models
