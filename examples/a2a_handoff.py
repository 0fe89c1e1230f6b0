"""Agent A in LangGraph delegates to agent B in PydanticAI over A2A, offline.

    python examples/a2a_handoff.py

B is an a2a-sdk server app; A's tool reaches it with the a2a-sdk client over
``httpx.ASGITransport`` (in process, no socket). The tool packs A's
conversation into ONE A2A message with :func:`pack`; B's executor reads it
with :func:`unpack` and :func:`pydantic_ai_input`. Both models are scripted.
Printed: the message's parts, then what B's model is sent: B's own
instructions, then one user prompt (the caller's conversation framed as data from
another agent, then the question). Run again with a key both ends share, and
B's model gets A's turns as its history instead.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_data_parts, get_message_text, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    SendMessageRequest,
)
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.prebuilt import InjectedState
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from starlette.applications import Starlette

from handoff_codec import Codec
from handoff_codec.integrations.a2a import pack, pydantic_ai_input, unpack

sys.path.insert(0, str(Path(__file__).resolve().parent))
from langgraph_scripted_model import ScriptedChatModel

URL = "http://billing.example/"
CARD = AgentCard(
    name="billing",
    description="Refunds and charges",
    version="1",
    supported_interfaces=[
        AgentInterface(protocol_binding="JSONRPC", url=URL, protocol_version="1.0")
    ],
    capabilities=AgentCapabilities(streaming=False),
    default_input_modes=["text/plain"],
    default_output_modes=["text/plain"],
    skills=[AgentSkill(id="refunds", name="refunds", description="refunds", tags=["billing"])],
)


class BillingExecutor(AgentExecutor):
    """Agent B: a PydanticAI agent, its thread kept per A2A contextId."""

    def __init__(self, codec: Codec | None) -> None:
        self.codec = codec
        self.sent: list[list[ModelMessage]] = []
        self.threads: dict[str, list[ModelMessage]] = {}

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.sent.append(messages)
            return ModelResponse(parts=[TextPart("Refunded the second charge.")])

        # instructions=, not system_prompt=: PydanticAI sends the latter only without a
        # history, and an expanded conversation is one.
        self.agent = Agent(FunctionModel(model), instructions="You are billing.")

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        context_id = context.context_id or ""
        history, prompt = pydantic_ai_input(unpack(context.message, codec=self.codec))
        result = await self.agent.run(
            prompt, message_history=[*self.threads.get(context_id, []), *history] or None
        )
        self.threads[context_id] = result.all_messages()
        await event_queue.enqueue_event(new_text_message(result.output, context_id=context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def server(executor: AgentExecutor) -> Starlette:
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=CARD
    )
    return Starlette(routes=[*create_jsonrpc_routes(handler, "/"), *create_agent_card_routes(CARD)])


async def send(app: Starlette, message: Message) -> str:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=URL) as http:
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(CARD)
        replies = [
            get_message_text(event.message)
            async for event in client.send_message(SendMessageRequest(message=message))
            if event.HasField("message")
        ]
    return "\n".join(replies)


async def run(codec: Codec | None) -> None:
    billing = BillingExecutor(codec)
    app = server(billing)

    @tool
    async def ask_billing(question: str, state: Annotated[dict[str, Any], InjectedState]) -> str:
        """Ask the billing agent."""
        message = pack(
            state["messages"],
            context_id="conversation-1",
            prompt=question,
            agent="triage",
            codec=codec,
        )
        for part in message.parts:
            size = len(part.text or json.dumps(get_data_parts([part])[0]))
            print(f"  part {part.media_type}: {size} characters")
        return await send(app, message)

    model = ScriptedChatModel(
        script=[
            AIMessage(
                "Let me ask billing.",
                tool_calls=[
                    {
                        "name": "ask_billing",
                        "args": {"question": "Was order 42 charged twice?"},
                        "id": "call_1",
                    }
                ],
            ),
            AIMessage("Billing refunded the second charge."),
        ],
        provider_metadata=True,
    )
    triage = create_agent(model, [ask_billing], system_prompt="You are triage.")
    state = await triage.ainvoke({"messages": [HumanMessage("I was charged twice for #42.")]})
    print("billing's model was sent:")
    print(f"  instructions: {billing.sent[0][-1].instructions!r}")
    for request in billing.sent[0]:
        for part in request.parts:
            shown = getattr(part, "content", None) or getattr(part, "args", None)
            print(f"  {type(part).__name__}: {shown!r}"[:300])
    print("triage answers:", state["messages"][-1].text)


async def main() -> None:
    print("== no shared key: the conversation is one framed user prompt")
    await run(None)
    print("\n== a key both ends share: the signed summary expands into B's history")
    await run(Codec(key=b"a secret both agents were configured with"))


if __name__ == "__main__":
    asyncio.run(main())
