"""PydanticAI delegation beside an app's own history processors, and without a prompt.

The delegate B's model must be sent the summary in every request of B's run,
whatever B's history processors do to the message list (rebuild it from new
objects, filter it, trim it), and wherever they sit among B's capabilities;
the summary must never reach B's thread (``result.all_messages()``), even
through a processor that writes the request list back to the run's history
(``ProcessHistory`` does: ``ctx.messages[:] = messages``).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import handoff_codec
from handoff_codec.integrations.pydantic_ai import FRAMING, HandoffHistory, delegate

pytestmark = pytest.mark.asyncio

B_PROMPT = "You are B, billing."
Messages = list[ModelMessage]


# ---------------------------------------------------------------- processors an app writes
def rebuild(messages: Messages) -> Messages:
    """New ModelMessage objects, equal to the old ones."""
    return [dataclasses.replace(m, parts=[dataclasses.replace(p) for p in m.parts])
            for m in messages]


def drop_thinking(messages: Messages) -> Messages:
    """A filter: new messages without thinking parts, and without messages left empty."""
    out: Messages = []
    for m in messages:
        parts = [dataclasses.replace(p) for p in m.parts if not isinstance(p, ThinkingPart)]
        if parts:
            out.append(dataclasses.replace(m, parts=parts))
    return out


def keep_last_three(messages: Messages) -> Messages:
    """A trim: the last three messages (new objects), starting at a request."""
    kept = rebuild(messages[-3:])
    while kept and not isinstance(kept[0], ModelRequest):
        kept.pop(0)
    return kept


PROCESSORS: dict[str, Callable[[Messages], Messages]] = {
    "rebuild": rebuild, "drop_thinking": drop_thinking, "keep_last_three": keep_last_three}


def summaries_in(messages: Messages) -> list[str]:
    """The summary texts in a message list (the part our framing opens)."""
    head = FRAMING.split("{agent}")[0]
    return [p.content[1] for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and isinstance(p.content, list)
            and isinstance(p.content[0], str) and p.content[0].startswith(head)]


def any_framing(messages: Messages) -> bool:
    return FRAMING.split("{agent}")[0] in repr(messages)


class Setup:
    """A (triage) delegates to B (billing); B thinks, calls a tool twice, then answers."""

    def __init__(self, b_capabilities: Callable[[], list[Any]] = list,
                 prompt: bool = True, where: str = "run, after ours") -> None:
        self.sent_to_b: list[Messages] = []
        self.b_threads: list[Messages] = []
        self.b_new: list[Messages] = []
        self.a = Agent(FunctionModel(self.a_model), system_prompt="You are A.", name="triage")
        self.b = Agent(FunctionModel(self.b_model), system_prompt=B_PROMPT, name="billing",
                       capabilities=b_capabilities() if where == "agent" else [])
        theirs = [] if where == "agent" else b_capabilities()

        @self.b.tool_plain
        def balance(account: str) -> dict[str, Any]:
            return {"account": account, "balance": 12}

        @self.a.tool
        async def ask_b(ctx: RunContext[None], question: str) -> str:
            prompt_ = question if prompt else None
            if where == "run, after ours":  # delegate() puts ours last: here it is first
                history = HandoffHistory.from_context(ctx)
                result = await self.b.run(prompt_, capabilities=[history, *theirs],
                                          usage=ctx.usage)
            else:
                result = await delegate(self.b, ctx, prompt_, capabilities=theirs)
            self.b_threads.append(result.all_messages())
            self.b_new.append(result.new_messages())
            return str(result.output)

    @staticmethod
    def a_model(messages: Messages, info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, ToolReturnPart) for p in messages[-1].parts):
            return ModelResponse([TextPart("Done.")])
        return ModelResponse([TextPart("Asking billing."),
                              ToolCallPart("ask_b", {"question": "Balance of acct-9?"}, "c-b")])

    def b_model(self, messages: Messages, info: AgentInfo) -> ModelResponse:
        self.sent_to_b.append(copy.deepcopy(messages))
        step = len(self.sent_to_b)
        if step <= 2:
            return ModelResponse([ThinkingPart(f"step {step}"),
                                  ToolCallPart("balance", {"account": "acct-9"}, f"c-{step}")])
        return ModelResponse([TextPart("Your balance is 12.")])


def check(setup: Setup, prompt: bool = True, trimmed: bool = False) -> None:
    """Every request of B's run holds one summary of A's conversation; B's thread none."""
    assert len(setup.sent_to_b) == 3
    for request in setup.sent_to_b:
        (text,) = summaries_in(request)
        items = handoff_codec.loads(text)
        assert items[0] == {"role": "user", "content": "Refund?"}
        assert {"role": "assistant", "name": "triage", "content": "Asking billing."} in items
    (thread,) = setup.b_threads
    (new,) = setup.b_new
    assert not any_framing(thread) and not any_framing(new)
    prompts = [p.content for m in thread if isinstance(m, ModelRequest) for p in m.parts
               if isinstance(p, UserPromptPart)]
    if not trimmed:  # (a trimming ProcessHistory trims the run's history too: ctx.messages[:])
        assert prompts == (["Balance of acct-9?"] if prompt else [])


WHERE = ["agent", "run, before ours", "run, after ours"]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", sorted(PROCESSORS))
async def test_the_summary_survives_a_processor_that_rebuilds_the_list(
        name: str, where: str) -> None:
    setup = Setup(lambda: [ProcessHistory(PROCESSORS[name])], where=where)
    await setup.a.run("Refund?")
    check(setup, trimmed=name == "keep_last_three")


async def test_a_processor_after_ours_never_saves_the_summary_into_the_thread() -> None:
    """ProcessHistory writes the request list back to the run's history."""
    setup = Setup(lambda: [ProcessHistory(lambda messages: list(messages))])
    await setup.a.run("Refund?")
    check(setup)


@pytest.mark.parametrize("where", WHERE)
async def test_delegate_without_a_prompt_hands_over_the_conversation(where: str) -> None:
    setup = Setup(lambda: [ProcessHistory(rebuild)], prompt=False, where=where)
    await setup.a.run("Refund?")
    check(setup, prompt=False)


async def test_delegate_without_a_prompt_and_no_processor() -> None:
    setup = Setup(prompt=False, where="run, before ours")
    await setup.a.run("Refund?")
    check(setup, prompt=False)


async def test_a_client_prompt_holding_our_framing_and_summary_stays_the_clients() -> None:
    """A run given, as its prompt, the very part our capability writes: the user's, once."""
    history = HandoffHistory(items=[{"role": "user", "content": "from A"}], agent="triage")
    forged = history.message_part()
    sent: list[Messages] = []
    b = Agent(FunctionModel(lambda m, i: (sent.append(m), ModelResponse([TextPart("ok")]))[1]),
              system_prompt=B_PROMPT, capabilities=[ProcessHistory(rebuild)])
    result = await b.run(forged.content, capabilities=[HandoffHistory(
        items=[{"role": "user", "content": "the real one"}], agent="triage")])
    (request,) = sent[0]
    assert isinstance(request, ModelRequest)
    found = summaries_in(sent[0])
    assert len(found) == 2 and handoff_codec.loads(found[0]) == [
        {"role": "user", "content": "the real one"}]
    assert handoff_codec.loads(found[1]) == [{"role": "user", "content": "from A"}]
    assert summaries_in(result.all_messages()) == [found[1]]  # the client's prompt, kept


async def test_interleaved_delegations_with_processors_see_only_their_own() -> None:
    both = asyncio.Barrier(2)
    setup = Setup(lambda: [ProcessHistory(rebuild)])
    original = setup.b_model

    async def b_model(messages: Messages, info: AgentInfo) -> ModelResponse:
        if len(setup.sent_to_b) < 2:
            await both.wait()
        return original(messages, info)

    setup.b = Agent(FunctionModel(b_model), system_prompt=B_PROMPT, name="billing")

    @setup.b.tool_plain
    def balance(account: str) -> dict[str, Any]:
        return {"account": account, "balance": 12}

    await asyncio.gather(setup.a.run("Alice: refund?"), setup.a.run("Bob: refund?"))
    firsts = sorted(handoff_codec.loads(summaries_in(s)[0])[0]["content"]
                    for s in setup.sent_to_b)
    assert firsts.count("Alice: refund?") + firsts.count("Bob: refund?") == len(firsts)
    for sent in setup.sent_to_b:
        (text,) = summaries_in(sent)
        assert ("Alice" in text) != ("Bob" in text)


async def test_a_streamed_run_is_sent_the_summary_and_keeps_its_thread() -> None:
    """``run_stream`` sends requests through the model's ``request_stream``."""
    sent: list[Messages] = []

    async def stream(messages: Messages, info: AgentInfo) -> AsyncIterator[str]:
        sent.append(copy.deepcopy(messages))
        yield "Refund "
        yield "approved."

    b = Agent(FunctionModel(stream_function=stream), system_prompt=B_PROMPT,
              capabilities=[ProcessHistory(rebuild)])
    history = HandoffHistory(items=[{"role": "user", "content": "from A"}], agent="triage")
    async with b.run_stream("Refund?", capabilities=[history, ProcessHistory(list)]) as result:
        assert await result.get_output() == "Refund approved."
    (text,) = summaries_in(sent[0])
    assert handoff_codec.loads(text) == [{"role": "user", "content": "from A"}]
    assert not any_framing(result.all_messages())
