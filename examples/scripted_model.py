"""A scripted ``Model`` for running the OpenAI Agents SDK offline.

``ScriptedModel`` is a real subclass of ``agents.models.interface.Model``. It
answers each call with the next pre-scripted list of output items (text
messages, function calls, handoff calls) and records the input it received, so
a program or a test can look at exactly what each agent was sent. Both ``Runner.run`` and
``Runner.run_streamed`` work. No network, no API key.

Shared by ``examples/agents_handoff.py`` and ``tests/test_agents_integration.py``.
"""

from __future__ import annotations

import copy
import json
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from agents import Agent, Handoff, ModelResponse, Usage
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model, ModelTracing
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
)

if TYPE_CHECKING:
    from agents.agent_output import AgentOutputSchemaBase
    from agents.model_settings import ModelSettings
    from agents.tool import Tool

__all__ = ["RecordedCall", "ScriptedModel", "handoff_call", "text", "tool_call"]


@dataclass
class RecordedCall:
    """What one ``get_response`` call received."""

    instructions: str | None
    input: list[dict[str, Any]]  # the Responses input items, as plain dicts
    tools: list[str] = field(default_factory=list)
    handoffs: list[str] = field(default_factory=list)


class ScriptedModel(Model):
    """Returns pre-scripted outputs in order, one list of output items per call.

    One instance can serve several agents: the script is a single queue, consumed
    in the order the Runner calls the model. ``calls`` records every input.
    """

    def __init__(self, script: Iterable[list[TResponseOutputItem]] = ()) -> None:
        self._script: deque[list[TResponseOutputItem]] = deque(script)
        self.calls: list[RecordedCall] = []

    def extend(self, script: Iterable[list[TResponseOutputItem]]) -> None:
        """Queue more responses (handy when the script names agents built on this model)."""
        self._script.extend(script)

    @property
    def remaining(self) -> int:
        """How many scripted responses have not been used."""
        return len(self._script)

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The next scripted output. Takes ``Model.get_response``'s arguments (see ``_next``)."""
        return ModelResponse(output=self._next(*args, **kwargs), usage=Usage(), response_id=None)

    def _next(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        **options: Any,  # previous_response_id, conversation_id, prompt
    ) -> list[TResponseOutputItem]:
        """Record one call and return the next scripted output.

        The arguments are those of ``agents.models.interface.Model.get_response``
        and ``stream_response``, given by position or by name.
        """
        received = [{"role": "user", "content": input}] if isinstance(input, str) else input
        items = cast(list[dict[str, Any]], copy.deepcopy(received))
        self.calls.append(
            RecordedCall(
                instructions=system_instructions,
                input=items,
                tools=[tool.name for tool in tools],
                handoffs=[h.tool_name for h in handoffs],
            )
        )
        if not self._script:
            raise RuntimeError(f"ScriptedModel: script exhausted at call {len(self.calls)}")
        return copy.deepcopy(self._script.popleft())

    async def stream_response(self, *args: Any, **kwargs: Any
                              ) -> AsyncIterator[TResponseStreamEvent]:
        """The scripted output as a stream: one ``output_item.done`` per item, then
        ``response.completed``."""
        output = self._next(*args, **kwargs)
        for index, item in enumerate(output):
            yield ResponseOutputItemDoneEvent(type="response.output_item.done", item=item,
                                              output_index=index, sequence_number=index)
        response = Response(id=f"resp_{len(self.calls)}", created_at=0.0, model="scripted",
                            object="response", output=output, tool_choice="auto", tools=[],
                            parallel_tool_calls=False)
        yield ResponseCompletedEvent(type="response.completed", response=response,
                                     sequence_number=len(output))


# ---------------------------------------------------------------- output builders
# Ids are explicit, so a scripted run prints and compares the same every time.


def text(content: str, *, msg_id: str) -> ResponseOutputMessage:
    """An assistant message output item."""
    return ResponseOutputMessage(
        id=msg_id,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=content, annotations=[])],
    )


def tool_call(name: str, arguments: dict[str, Any], *, call_id: str) -> ResponseFunctionToolCall:
    """A function-call output item for the tool ``name`` (item id ``fc_<call_id>``)."""
    return ResponseFunctionToolCall(
        id=f"fc_{call_id}",
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=json.dumps(arguments),
    )


def handoff_call(target: Agent[Any], *, call_id: str) -> ResponseFunctionToolCall:
    """A call of the default handoff tool that transfers to ``target``."""
    return tool_call(Handoff.default_tool_name(target), {}, call_id=call_id)
