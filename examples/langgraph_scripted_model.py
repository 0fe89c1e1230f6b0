"""A scripted LangChain chat model for running LangGraph agents offline.

``ScriptedChatModel`` is a real ``BaseChatModel``: it answers each call with the
next scripted ``AIMessage`` and records the messages it was sent
(``.requests``), so a program or a test sees exactly what each agent's model
received. ``bind_tools`` binds the tools' schemas as a provider's model does
(``BaseChatModel.bind_tools`` raises ``NotImplementedError``). It answers
``ainvoke`` natively, without a worker thread. With ``provider_metadata=True``
each answer carries the ``id``, ``response_metadata`` and ``usage_metadata``
that ``langchain_openai.ChatOpenAI`` attaches (:func:`provider_metadata`).
No network.

Shared by ``examples/langgraph_handoff.py``, ``tests/integrations/langgraph/`` and
``benchmarks/frameworks/langgraph.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

__all__ = ["ScriptedChatModel", "call", "provider_metadata", "reply"]

_ANSWERS = itertools.count(1)  # ids unique across models, as a provider's are


class ScriptedChatModel(BaseChatModel):
    """Answers call n with ``script[n]``; records every request in ``requests``."""

    script: list[AIMessage]
    requests: list[list[BaseMessage]] = Field(default_factory=list)
    provider_metadata: bool = False

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """The model bound to the tools' schemas, as a provider's model binds them (the
        script already holds the calls, so ``_generate`` ignores them)."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.requests.append([message.model_copy(deep=True) for message in messages])
        if len(self.requests) > len(self.script):
            raise RuntimeError(f"script exhausted: call {len(self.requests)} of a script of "
                               f"{len(self.script)}")
        answer = self.script[len(self.requests) - 1].model_copy(deep=True)
        if self.provider_metadata:
            answer = answer.model_copy(update=provider_metadata(next(_ANSWERS)))
        return ChatResult(generations=[ChatGeneration(message=answer)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, None, **kwargs)


def provider_metadata(n: int) -> dict[str, Any]:
    """The ``id``, ``response_metadata`` and ``usage_metadata`` of the ``n``-th answer, as
    ``ChatOpenAI`` (chat completions) attaches them to an AIMessage."""
    response_id = f"chatcmpl-BXk{n % 10000:04d}q7ZfN2mQpTe8RwYvLs3dHc"
    return {
        "id": response_id,
        "response_metadata": {
            "token_usage": {
                "completion_tokens": 17, "prompt_tokens": 412, "total_tokens": 429,
                "completion_tokens_details": {"accepted_prediction_tokens": 0, "audio_tokens": 0,
                                              "reasoning_tokens": 0,
                                              "rejected_prediction_tokens": 0},
                "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 0}},
            "model_provider": "openai", "model_name": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_07871e2ad8", "id": response_id,
            "service_tier": "default", "finish_reason": "stop", "logprobs": None},
        "usage_metadata": {
            "input_tokens": 412, "output_tokens": 17, "total_tokens": 429,
            "input_token_details": {"audio": 0, "cache_read": 0},
            "output_token_details": {"audio": 0, "reasoning": 0}},
    }


def call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """One tool call, as an AIMessage holds it."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def reply(content: str | list[str | dict[str, Any]] = "", *calls: dict[str, Any]) -> AIMessage:
    """A scripted answer: text (or content blocks) and tool calls, made in parallel."""
    return AIMessage(content=content, tool_calls=list(calls))


