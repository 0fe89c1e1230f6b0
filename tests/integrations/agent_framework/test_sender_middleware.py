"""A sender's agent middleware that redacts its response after the run: calls, results, text.

With the provider's ``agent_middleware`` first in the sender's middleware list,
the records are written after every agent middleware, so they hold the response
as the redaction left it: the next model never gets the card, and still gets
every call with its result. Every way of editing: in place, new messages with
the same fields, a ``to_dict``/``from_dict`` round trip.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Agent, AgentContext, AgentMiddleware, Content, Message, tool
from agent_framework_orchestrations import HandoffBuilder

from handoff_codec.integrations import agent_framework as af
from tests.integrations.agent_framework._workflows import (
    ScriptedChatClient,
    contents,
    quiet,
    seen,
)

CARD = "4111 1111 1111 1111"


@tool
def card_on_file(order_id: int) -> str:
    """The card an order was paid with."""
    return f"order {order_id} paid with {CARD}"


def _redact(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(CARD, "[card]")
    if isinstance(value, dict):
        return {k: _redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return value


def _in_place(messages: list[Message]) -> list[Message]:
    for message in messages:
        for content in message.contents:
            if content.type == "function_result":
                content.result = _redact(content.result)
                for item in content.items or []:
                    if item.type == "text":
                        item.text = _redact(item.text)
            elif content.type == "function_call":
                content.arguments = _redact(content.arguments)
            elif content.type == "text":
                content.text = _redact(content.text)
    return messages


def _round_trip(messages: list[Message]) -> list[Message]:
    return [Message.from_dict(_redact(m.to_dict())) for m in messages]


def _same_fields(messages: list[Message]) -> list[Message]:
    return [Message(m.role, [Content.from_dict(_redact(c.to_dict())) for c in m.contents],
                    author_name=m.author_name, message_id=m.message_id,
                    additional_properties=m.additional_properties) for m in messages]


EDITS: dict[str, Callable[[list[Message]], list[Message]]] = {
    "in place": _in_place, "to_dict round trip": _round_trip,
    "new contents, same fields": _same_fields}


class _Redactor(AgentMiddleware):
    def __init__(self, edit: Callable[[list[Message]], list[Message]]) -> None:
        self.edit = edit

    async def process(self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
                      ) -> None:
        await call_next()
        if context.result is not None:
            context.result.messages[:] = self.edit(list(context.result.messages))


def _receiver_sees(edit: str, ours: bool = True) -> tuple[list[Message], list[Message]]:
    history = quiet()
    scripts = {"a": [Message("assistant", [
        Content.from_text(f"Checking the card {CARD}."),
        Content.from_function_call("t1", "card_on_file", arguments={"order_id": 42,
                                                                     "card": CARD})]),
        Message("assistant", [Content.from_function_call("h1", "handoff_to_b")])],
        "b": [Message("assistant", ["Billing here."])]}
    clients = {name: ScriptedChatClient(script) for name, script in scripts.items()}
    agents = [
        Agent(client=clients["a"], name="a", tools=[card_on_file], context_providers=[history],
              middleware=[*([history.agent_middleware] if ours else []),
                          _Redactor(EDITS[edit])],
              require_per_service_call_history_persistence=True),
        Agent(client=clients["b"], name="b", context_providers=[history],
              require_per_service_call_history_persistence=True)]
    workflow = HandoffBuilder(participants=agents).with_start_agent(agents[0]).build()
    result = asyncio.run(workflow.run([Message("user", ["Order 42?"])]))
    outputs = [m for output in result.get_outputs() for m in getattr(output, "messages", [])]
    (request,) = clients["b"].requests
    return request, outputs


@pytest.mark.parametrize("edit", list(EDITS))
def test_the_records_hold_the_response_as_the_senders_agent_middleware_left_it(
        edit: str) -> None:
    request, outputs = _receiver_sees(edit)
    read = seen(request)
    assert CARD not in json.dumps([m.to_dict() for m in read])
    assert CARD not in json.dumps([m.to_dict() for m in request])
    assert CARD not in json.dumps([m.to_dict() for m in outputs])  # nor in the records kept
    if edit != "to_dict round trip":  # that one edits the records' text too: taken as it reads
        assert [c.call_id for c in contents(read, "function_call")] == ["t1", "h1"]
        assert [c.call_id for c in contents(read, "function_result")] == ["t1", "h1"]
        assert any(af.is_summary(m) for m in request)


@pytest.mark.parametrize("ours", [True, False], ids=["listed first", "not listed"])
def test_an_agent_middleware_the_records_come_before_is_warned_of(
        ours: bool, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="handoff_codec"):
        _receiver_sees("in place", ours)
    warned = [r for r in caplog.records if "agent_middleware first" in r.getMessage()]
    assert bool(warned) is not ours
