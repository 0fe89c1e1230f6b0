"""A scripted LangChain chat model for running LangGraph agents offline.

``ScriptedChatModel`` is a real ``BaseChatModel``: it answers each call with the
next scripted ``AIMessage`` and records the messages it was sent
(``.requests``), so a program or a test sees exactly what each agent's model
received. ``bind_tools`` binds the tools' schemas as a provider's model does
(``BaseChatModel.bind_tools`` raises ``NotImplementedError``). No network.

Shared by ``examples/langgraph_handoff.py`` and ``tests/integrations/test_langgraph.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

__all__ = ["ScriptedChatModel", "call", "reply"]


class ScriptedChatModel(BaseChatModel):
    """Answers call n with ``script[n]``; records every request in ``requests``."""

    script: list[AIMessage]
    requests: list[list[BaseMessage]] = Field(default_factory=list)

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
        return ChatResult(generations=[ChatGeneration(message=answer)])


def call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """One tool call, as an AIMessage holds it."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def reply(content: str | list[str | dict[str, Any]] = "", *calls: dict[str, Any]) -> AIMessage:
    """A scripted answer: text (or content blocks) and tool calls, made in parallel."""
    return AIMessage(content=content, tool_calls=list(calls))


