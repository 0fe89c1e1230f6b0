"""Promise 1, with the app's middleware: what it leaves in the messages is what the model gets.

An app redacts a card number with middleware: on the receiving agent (a chat
middleware on each model call, or an agent middleware on its input), or on the
sending agent (an agent middleware on its response, after the run; a chat
middleware on each model response). Every place, every way of editing (in place,
new messages with the same fields, a ``to_dict``/``from_dict`` round trip, new
messages without the fields): the receiver's model is sent the redacted text and
never the number. Left alone, the records still bring the calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import (
    Agent,
    AgentContext,
    AgentMiddleware,
    ChatContext,
    ChatMiddleware,
    Content,
    Message,
)
from agent_framework_orchestrations import HandoffBuilder, clean_conversation_for_handoff

from handoff_codec.integrations import agent_framework as af
from tests.integrations.agent_framework._workflows import (
    ScriptedChatClient,
    contents,
    lookup_order,
    quiet,
    seen,
)

CARD = "4111 1111 1111 1111"
REDACTED = "[card]"
SAID = f"Your card {CARD} was charged twice."


def _redact_text(text: str | None) -> str | None:
    return None if text is None else text.replace(CARD, REDACTED)


def _in_place(messages: list[Message]) -> list[Message]:
    for message in messages:
        for content in message.contents:
            if content.type == "text":
                content.text = _redact_text(content.text)
    return messages


def _redacted_contents(message: Message) -> list[Content]:
    return [Content.from_text(_redact_text(c.text) or "") if c.type == "text" else c
            for c in message.contents]


def _same_fields(messages: list[Message]) -> list[Message]:
    return [Message(m.role, _redacted_contents(m), author_name=m.author_name,
                    message_id=m.message_id, additional_properties=m.additional_properties)
            for m in messages]


def _round_trip(messages: list[Message]) -> list[Message]:
    out = []
    for message in messages:
        form = message.to_dict()
        for content in form.get("contents", []):
            if content.get("type") == "text":
                content["text"] = _redact_text(content["text"])
        out.append(Message.from_dict(form))
    return out


def _no_fields(messages: list[Message]) -> list[Message]:
    return [Message(m.role, _redacted_contents(m), author_name=m.author_name)
            for m in messages]


EDITS: dict[str, Callable[[list[Message]], list[Message]]] = {
    "in place": _in_place, "new messages, same fields": _same_fields,
    "to_dict round trip": _round_trip, "new messages, no fields": _no_fields}


class _ChatRedactor(ChatMiddleware):
    def __init__(self, edit: Callable[[list[Message]], list[Message]], when: str) -> None:
        self.edit, self.when = edit, when

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]
                      ) -> None:
        if self.when == "request":
            context.messages = self.edit(list(context.messages))
        await call_next()
        if self.when == "response" and context.result is not None:
            context.result.messages[:] = self.edit(list(context.result.messages))


class _AgentRedactor(AgentMiddleware):
    def __init__(self, edit: Callable[[list[Message]], list[Message]], when: str) -> None:
        self.edit, self.when = edit, when

    async def process(self, context: AgentContext, call_next: Callable[[], Awaitable[None]]
                      ) -> None:
        if self.when == "request":
            context.messages = self.edit(list(context.messages))
        await call_next()
        if self.when == "response" and context.result is not None:
            context.result.messages[:] = self.edit(list(context.result.messages))


# Where the app's middleware is: (agent it is on, kind, request or response).
PLACES: dict[str, tuple[str, type[Any], str]] = {
    "receiver's chat middleware": ("b", _ChatRedactor, "request"),
    "receiver's agent middleware": ("b", _AgentRedactor, "request"),
    "sender's agent middleware": ("a", _AgentRedactor, "response"),
    "sender's chat middleware": ("a", _ChatRedactor, "response"),
}


def _scripts() -> dict[str, list[Message]]:
    """A says the number while looking the order up, then hands off to B without a word."""
    lookup = Content.from_function_call("t1", "lookup_order", arguments={"order_id": 42})
    return {"a": [Message("assistant", [Content.from_text(SAID), lookup]),
                  Message("assistant", [Content.from_function_call("h1", "handoff_to_b")])],
            "b": [Message("assistant", ["Billing here."])]}


def _receiver_request(middleware: dict[str, list[Any]]) -> list[Message]:
    history = quiet()
    clients = {name: ScriptedChatClient(script) for name, script in _scripts().items()}
    agents = [Agent(client=clients[name], name=name, context_providers=[history],
                    tools=[lookup_order] if name == "a" else None,
                    middleware=middleware.get(name),
                    require_per_service_call_history_persistence=True) for name in "ab"]
    workflow = HandoffBuilder(participants=agents).with_start_agent(agents[0]).build()
    asyncio.run(workflow.run([Message("user", ["Order 42?"])]))
    (request,) = clients["b"].requests
    return request


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("place", list(PLACES))
def test_what_the_apps_middleware_leaves_is_what_the_model_is_sent(place: str,
                                                                   edit: str) -> None:
    agent, kind, when = PLACES[place]
    request = _receiver_request({agent: [kind(EDITS[edit], when)]})
    read = seen(request)
    texts = [c.text or "" for c in contents(read, "text")]
    texts += [str(c.result) for c in contents(read, "function_result")]
    assert not [text for text in texts if CARD in text]
    assert CARD not in "".join(m.text for m in request)  # nor anywhere in the request
    assert [m.role for m in read if m.text == SAID.replace(CARD, REDACTED)] == ["assistant"]


def test_left_alone_the_records_bring_the_calls() -> None:
    # The other side: a middleware that changes nothing keeps what the records add.
    request = _receiver_request({"b": [_ChatRedactor(lambda messages: messages, "request")]})
    read = seen(request)
    assert [c.call_id for c in contents(read, "function_call")] == ["t1", "h1"]
    assert [c.call_id for c in contents(read, "function_result")] == ["t1", "h1"]
    assert any(af.is_summary(m) for m in request)


@pytest.mark.parametrize("edit", ["in place", "new content"])
def test_an_edit_after_a_summary_was_written_is_sent_the_next_time(edit: str) -> None:
    # Summaries are written once for the same messages; the same message objects, edited
    # after one model call, must be sent as edited on the next.
    said = [Message("assistant", [Content.from_text(SAID), Content.from_function_call(
                "t1", "lookup_order", arguments={"order_id": 42})], author_name="a"),
            Message("tool", [Content.from_function_result("t1", result="found")],
                    author_name="a")]
    # What the framework hands on of A's response: its cleaned copy, text only.
    (handed,) = clean_conversation_for_handoff(af.hand_on(said, "a"))
    request = [Message("user", ["Order 42?"]), handed]
    provider = quiet()
    for _ in range(2):
        sent = provider.rewrite(request, "b")
        assert sent is not None and CARD in sent[1].text
    if edit == "in place":
        _in_place([handed])
    else:
        handed.contents = [Content.from_text(SAID.replace(CARD, REDACTED)),
                           *handed.contents[1:]]
    sent = provider.rewrite(request, "b")
    assert sent is not None and CARD not in sent[1].text
    assert [m.text for m in seen(sent) if m.author_name == "a"] == [SAID.replace(CARD, REDACTED)]
