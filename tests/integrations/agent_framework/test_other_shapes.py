"""Shapes besides HandoffBuilder's own: a workflow that hands on whole responses, and a model
reply that carries another agent's name.

``SequentialBuilder`` hands the next agent A's whole response, not the
framework's cleaned copy: each call and result reaches B once. A model's reply
may carry any ``author_name``, the receiving agent's included: what our code
sealed as A's response is still summarized for B, with A's calls.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Agent, Content, Message
from agent_framework_orchestrations import SequentialBuilder

from tests.integrations.agent_framework._workflows import (
    ScriptedChatClient,
    build_workflow,
    contents,
    lookup_order,
    quiet,
    seen,
    unpaired_calls,
)


def test_a_sequential_workflow_sends_each_call_and_result_once() -> None:
    history = quiet()
    a_client = ScriptedChatClient([
        Message("assistant", [Content.from_text("Looking."), Content.from_function_call(
            "t1", "lookup_order", arguments={"order_id": 42})]),
        Message("assistant", ["Charged twice."])])
    b_client = ScriptedChatClient([Message("assistant", ["B here."])])
    agents = [Agent(client=a_client, name="a", tools=[lookup_order], context_providers=[history]),
              Agent(client=b_client, name="b", context_providers=[history])]
    asyncio.run(SequentialBuilder(participants=agents).build().run("Order 42?"))
    read = seen(b_client.requests[0])
    assert [c.call_id for c in contents(read, "function_call")] == ["t1"]
    assert [c.call_id for c in contents(read, "function_result")] == ["t1"]
    assert unpaired_calls(read) == []


@pytest.mark.parametrize("name", ["b", None], ids=["named as the receiver", "unnamed"])
def test_a_reply_named_as_the_receiver_still_hands_on_its_records(name: str | None) -> None:
    scripts = {"a": [Message("assistant", [Content.from_text("A: I looked it up."),
                                           Content.from_function_call(
                                               "t1", "lookup_order", arguments={"order_id": 42})],
                             author_name=name),
                     Message("assistant", [Content.from_function_call("h1", "handoff_to_b")],
                             author_name=name)],
               "b": [Message("assistant", ["B here."])], "c": []}
    workflow, clients = build_workflow([quiet()], scripts)
    asyncio.run(workflow.run([Message("user", ["hi"])]))
    read = seen(clients["b"].requests[0])
    assert [c.call_id for c in contents(read, "function_call")] == ["t1", "h1"]
    assert [c.call_id for c in contents(read, "function_result")] == ["t1", "h1"]
    assert [m.text for m in read if m.text.startswith("A: ")] == ["A: I looked it up."]
