"""A tool that needs approval: every call reaches the next agent with its result.

Agent A says a line and calls a tool with ``approval_mode="always_require"``;
the run stops for the approval, which the framework does not hand on; the user
approves, A's next run holds the result (not the call) and hands off to B. B's
model is sent A's line, the call and its result, in order.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Agent, Content, Message, tool
from agent_framework_orchestrations import HandoffAgentUserRequest, HandoffBuilder

from tests.integrations.agent_framework._workflows import (
    ScriptedChatClient,
    contents,
    quiet,
    seen,
    unpaired_calls,
)


@tool(approval_mode="always_require")
def refund(order_id: int) -> str:
    """Refund an order."""
    return f"refunded {order_id}"


def _b_request(approved: bool) -> list[Message]:
    history = quiet()
    scripts = {"a": [Message("assistant", [
        Content.from_text("I'll refund."),
        Content.from_function_call("r1", "refund", arguments={"order_id": 42})]),
        Message("assistant", [Content.from_text("Done."),
                              Content.from_function_call("h1", "handoff_to_b")])],
        "b": [Message("assistant", ["Billing here."])]}
    clients = {name: ScriptedChatClient(script) for name, script in scripts.items()}
    agents = [Agent(client=clients[name], name=name, context_providers=[history],
                    tools=[refund] if name == "a" else None,
                    require_per_service_call_history_persistence=True) for name in "ab"]
    workflow = HandoffBuilder(participants=agents).with_start_agent(agents[0]).build()

    async def converse() -> None:
        result = await workflow.run([Message("user", ["Refund order 42"])])
        for _ in range(4):
            events = result.get_request_info_events()
            if not events or clients["b"].requests:
                return
            data: Any = events[0].data
            if getattr(data, "type", None) == "function_approval_request":
                answer: Any = data.to_function_approval_response(approved=approved)
            else:
                answer = HandoffAgentUserRequest.terminate()
            result = await workflow.run(responses={events[0].request_id: answer})

    asyncio.run(converse())
    (request,) = clients["b"].requests
    return request


@pytest.mark.parametrize("approved", [True, False], ids=["approved", "rejected"])
def test_an_approved_call_reaches_the_next_agent_with_its_result_and_text(
        approved: bool) -> None:
    read = seen(_b_request(approved))
    assert unpaired_calls(read) == []
    assert [c.call_id for c in contents(read, "function_call")] == ["r1", "h1"]
    assert [c.call_id for c in contents(read, "function_result")] == ["r1", "h1"]
    texts = [m.text for m in read if m.role == "assistant" and m.text]
    assert texts[:2] == ["I'll refund.", "Done."]
