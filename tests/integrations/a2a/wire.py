"""An a2a-sdk server app and client in one process, and agent B of each framework behind it.

The client reaches the app over ``httpx.ASGITransport``: the real JSON-RPC
transport, no socket. Each receiver is an ``AgentExecutor`` as a user writes
one: ``unpack`` the message, hand the framework's agent its input for the
turn, keep the thread in the framework's own state under the ``contextId``.
Every model is scripted and records what it was sent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers import get_message_text, new_text_message
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
from agent_framework import Agent as AFAgent
from agent_framework import AgentSession
from agent_framework import Content as AFContent
from agent_framework import Message as AFMessage
from google.adk.a2a.executor.a2a_agent_executor import A2aAgentExecutor
from google.adk.a2a.executor.config import A2aAgentExecutorConfig
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from starlette.applications import Starlette

from handoff_codec import Codec
from handoff_codec.integrations import a2a

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "examples"))

from agent_framework_scripted import ScriptedChatClient  # noqa: E402
from google_adk_scripted import ScriptedLlm  # noqa: E402
from langgraph_scripted_model import ScriptedChatModel  # noqa: E402

__all__ = [
    "LangGraphB",
    "PydanticAIB",
    "ScriptedChatModel",
    "ScriptedLlm",
    "adk_b",
    "app",
    "card",
    "send",
]

URL = "http://agent-b.test/"


def card(name: str) -> AgentCard:
    """A spec-complete agent card served at ``URL`` over JSON-RPC."""
    return AgentCard(
        name=name,
        description=f"agent {name}",
        version="1",
        supported_interfaces=[
            AgentInterface(protocol_binding="JSONRPC", url=URL, protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="answer", name="answer", description="answers", tags=["a"])],
    )


def app(executor: AgentExecutor, name: str = "b") -> Starlette:
    """The A2A server app of ``executor``: the JSON-RPC endpoint and the agent card."""
    agent_card = card(name)
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=agent_card
    )
    return Starlette(
        routes=[*create_jsonrpc_routes(handler, "/"), *create_agent_card_routes(agent_card)]
    )


async def send(server: Starlette, message: Message) -> str:
    """``message/send`` of ``message`` to ``server`` in process; the reply's text."""
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url=URL) as http:
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card("b"))
        texts = []
        async for event in client.send_message(SendMessageRequest(message=message)):
            if event.HasField("message"):
                texts.append(get_message_text(event.message))
            elif event.HasField("task"):
                for artifact in event.task.artifacts:
                    texts.extend(p.text for p in artifact.parts if p.text)
                if event.task.status.HasField("message"):
                    texts.append(get_message_text(event.task.status.message))
        return "\n".join(texts)


class _Receiver(AgentExecutor):
    def __init__(self, codec: Codec | None = None) -> None:
        self.codec = codec

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        unpacked = a2a.unpack(context.message, codec=self.codec)
        answer = await self.run(unpacked, context.context_id or "")
        await event_queue.enqueue_event(new_text_message(answer, context_id=context.context_id))

    async def run(self, unpacked: a2a.Unpacked, context_id: str) -> str:
        raise NotImplementedError

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class PydanticAIB(_Receiver):
    """Agent B in PydanticAI: its thread per ``contextId`` is the run's ``all_messages()``."""

    def __init__(
        self, answer: Callable[[list[ModelMessage]], str], *, codec: Codec | None = None
    ) -> None:
        super().__init__(codec)
        self.sent: list[list[ModelMessage]] = []

        def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.sent.append(list(messages))
            return ModelResponse(parts=[TextPart(answer(messages))])

        self.agent = Agent(FunctionModel(model), system_prompt="You are B, billing.", name="b")
        self.threads: dict[str, list[ModelMessage]] = {}

    async def run(self, unpacked: a2a.Unpacked, context_id: str) -> str:
        thread = self.threads.get(context_id, [])
        history, prompt = a2a.pydantic_ai_input(unpacked.new_to(a2a.to_items(thread)))
        result = await self.agent.run(prompt, message_history=[*thread, *history] or None)
        self.threads[context_id] = result.all_messages()
        return result.output


class LangGraphB(_Receiver):
    """Agent B in LangGraph: ``create_agent`` with a checkpointer, ``thread_id`` the contextId."""

    def __init__(self, script: list[AIMessage], *, codec: Codec | None = None) -> None:
        super().__init__(codec)
        self.model = ScriptedChatModel(script=script)
        self.graph: Any = create_agent(
            self.model,
            [],
            system_prompt="You are B, billing.",
            name="b",
            checkpointer=InMemorySaver(),
        )

    async def run(self, unpacked: a2a.Unpacked, context_id: str) -> str:
        config = {"configurable": {"thread_id": context_id}}
        held = a2a.to_items(self.thread(context_id))
        messages = a2a.langgraph_messages(unpacked.new_to(held))
        state = await self.graph.ainvoke({"messages": messages}, config)
        return str(state["messages"][-1].text)

    def thread(self, context_id: str) -> list[BaseMessage]:
        """The thread a UI reads: ``get_state(...).values["messages"]``."""
        config = {"configurable": {"thread_id": context_id}}
        return list(self.graph.get_state(config).values.get("messages", []))


def adk_b(
    answers: list[str], *, converter: bool = True
) -> tuple[A2aAgentExecutor, ScriptedLlm, InMemoryRunner]:
    """Agent B in ADK behind ADK's own A2A executor, with this module's request converter
    (ADK's own with ``converter=False``).

    ADK keeps B's thread in the session it names after the ``contextId``.
    """
    llm = ScriptedLlm(
        model="scripted",
        script=[types.Content(role="model", parts=[types.Part(text=answer)]) for answer in answers],
    )
    agent = LlmAgent(name="billing", model=llm, instruction="You are B, billing.")
    runner = InMemoryRunner(agent=agent, app_name="billing")
    config = (
        A2aAgentExecutorConfig(request_converter=a2a.google_adk_request_converter())
        if converter
        else None
    )
    return A2aAgentExecutor(runner=runner, config=config), llm, runner


class AgentFrameworkB(_Receiver):
    """Agent B in Agent Framework: one ``AgentSession`` per ``contextId`` keeps its thread."""

    def __init__(self, answers: list[str], *, codec: Codec | None = None) -> None:
        super().__init__(codec)
        self.client = ScriptedChatClient(
            [AFMessage(role="assistant", contents=[AFContent.from_text(a)]) for a in answers]
        )
        self.agent = AFAgent(client=self.client, name="billing", instructions="You are B, billing.")
        self.sessions: dict[str, AgentSession] = {}

    async def run(self, unpacked: a2a.Unpacked, context_id: str) -> str:
        session = self.sessions.setdefault(
            context_id, self.agent.create_session(session_id=context_id)
        )
        response = await self.agent.run(a2a.agent_framework_messages(unpacked), session=session)
        return response.text
