"""The LangGraph drop-ins in a real swarm and a real supervisor, against the defaults.

The assertions are on what the RECEIVING agent's model was sent. Each test of
ours has a twin that runs the framework's default on the same conversation and
asserts what it loses. When one of those twins fails, upstream has changed:
update docs/frameworks.md (the LangGraph section).
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("langgraph_swarm")
pytest.importorskip("langgraph_supervisor")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.warnings import LangGraphDeprecatedSinceV10
from langgraph_supervisor import create_supervisor
from langgraph_swarm import create_handoff_tool as swarm_handoff_tool

import handoff_codec
from handoff_codec.integrations import langgraph as lg
from tests.integrations.langgraph._graphs import (
    HOSTILE,
    ScriptedChatModel,
    call,
    dump,
    lookup_order,
    no_system_but,
    refund,
    reply,
    summaries,
    swarm,
    texts_of,
    unanswered,
)

IMAGE = {"type": "image", "url": "https://example.com/receipt.png"}
USER = HumanMessage(content=[{"type": "text", "text": "Order 42 was charged twice."},
                             {"type": "text", "text": HOSTILE}, IMAGE])


# ---------------------------------------------------------------- swarm, three agents


def three_agents() -> dict[str, ScriptedChatModel]:
    """triage -> billing -> support. Triage calls two tools AND the handoff in parallel
    (the handoff first answers "call me again alone"), then hands off alone."""
    return {
        "triage": ScriptedChatModel(script=[
            reply([{"type": "text", "text": "Let me check."}, {"type": "text", "text": "  "}],
                  call("lookup_order", "c1", order_id=42), call("refund", "c2", order_id=42),
                  call("transfer_to_billing", "c3")),
            reply("", call("transfer_to_billing", "c4")),
        ]),
        "billing": ScriptedChatModel(script=[
            reply([{"type": "reasoning", "reasoning": "approval is support's"},
                   {"type": "text", "text": "The refund needs approval."}],
                  call("transfer_to_support", "c5")),
        ]),
        "support": ScriptedChatModel(script=[reply("Approved; refund on its way.")]),
    }


TOOLS = {"triage": [lookup_order, refund]}


@pytest.mark.parametrize("react", [False, True], ids=["create_agent", "create_react_agent"])
def test_swarm_hands_each_agent_one_summary_and_keeps_the_thread(react: bool) -> None:
    models = three_agents()
    app = swarm(models, TOOLS, react=react)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        state = app.invoke({"messages": [USER]})["messages"]
    request = models["support"].requests[0]

    # The receiving model: its own prompt, ONE summary (a user message), the handoff pair.
    assert [type(m) for m in request] == [SystemMessage, lg.HandoffSummary, AIMessage,
                                          ToolMessage]
    summary, handoff, handed = request[1:]
    assert isinstance(handoff, AIMessage) and [c["id"] for c in handoff.tool_calls] == ["c5"]
    assert isinstance(handed, ToolMessage) and handed.tool_call_id == "c5"
    assert unanswered(request) == []
    no_system_but(request, "You are support.")
    # It stands for the state's messages before billing's handoff call, exactly.
    assert dump(lg.flatten([summary])) == dump(state[:state.index(handoff)])
    # The image reaches the model as a block of the user message, not as text.
    assert isinstance(summary.content, list)
    text, *attached = summary.content
    assert attached == [IMAGE] and isinstance(text, dict) and IMAGE["url"] not in text["text"]
    # The text holds what a model is sent of those messages; hostile text stays in its record.
    visible = lg.loads(text["text"])
    expected = lg.model_visible(lg.flatten([summary]))
    placeholder = {"type": "attached_media", "index": 1}
    expected[0] = expected[0].model_copy(update={"content": [*USER.content[:2], placeholder]})
    assert dump(visible) == dump(expected)
    items = handoff_codec.loads(text["text"])
    assert not any(item.get("role") == "system" for item in items)
    assert sum(HOSTILE in json.dumps(item, ensure_ascii=False) for item in items) == 1
    results = {m.tool_call_id: m.status for m in visible if isinstance(m, ToolMessage)}
    assert results == {"c1": "success", "c2": "error", "c3": "error", "c4": "success"}

    # Billing got one summary too; the state keeps every message, in order.
    assert [type(m) for m in models["billing"].requests[0]] == [
        SystemMessage, lg.HandoffSummary, AIMessage, ToolMessage]
    assert [m.tool_call_id for m in state if isinstance(m, ToolMessage)] == [
        "c1", "c2", "c3", "c4", "c5"]
    assert state[0] == USER and state[-1].content == "Approved; refund on its way."
    assert not any(lg.is_summary(m) for m in state)


def test_default_swarm_drops_results_of_calls_parallel_to_the_handoff() -> None:
    # Upstream: langgraph-swarm #26, #58, #69, #83, #94, #105. If this fails, the
    # swarm keeps them now: update docs/frameworks.md.
    models = three_agents()
    swarm(models, TOOLS, handoff=swarm_handoff_tool, ours=False).invoke({"messages": [USER]})
    request = models["billing"].requests[0]
    assert unanswered(request) == ["c1", "c2"]
    assert not any("order 42: charged twice" in t for m in request for t in texts_of(m))


def test_default_swarm_with_create_react_agent_refuses_the_history() -> None:
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"), warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        swarm(three_agents(), TOOLS, handoff=swarm_handoff_tool, ours=False,
              react=True).invoke({"messages": [USER]})


def test_handoff_tool_matches_the_swarm_one() -> None:
    ours = lg.create_handoff_tool(agent_name="Billing Desk")
    theirs = swarm_handoff_tool(agent_name="Billing Desk")
    assert (ours.name, ours.description, ours.metadata) == (
        theirs.name, theirs.description, theirs.metadata)
    assert ours.args == theirs.args == {}  # the model sees no argument: state and id are injected
    named = lg.create_handoff_tool(agent_name="b", name="go_b", description="Go to b")
    assert (named.name, named.description) == ("go_b", "Go to b")


class _NoThreads(ThreadPoolExecutor):
    """An event loop's default executor that refuses work: code run under ``ainvoke`` that
    needs a worker thread (a sync-only tool, a sync-only model) fails."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"a worker thread was asked to run {fn!r}")


@pytest.mark.parametrize("react", [False, True], ids=["create_agent", "create_react_agent"])
def test_swarm_hands_over_under_ainvoke(react: bool) -> None:
    models = three_agents()
    app = swarm(models, TOOLS, react=react)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        state = asyncio.run(app.ainvoke({"messages": [USER]}))["messages"]
    request = models["support"].requests[0]
    assert [type(m) for m in request] == [SystemMessage, lg.HandoffSummary, AIMessage,
                                          ToolMessage]
    assert unanswered(request) == [] and len(state) == 10


def test_handoff_tool_runs_as_a_coroutine_under_ainvoke() -> None:
    # A sync-only tool under ainvoke needs a worker thread of the event loop's executor;
    # ours answers on the loop itself, as the swarm's own ToolNode calls it.
    handoff = lg.create_handoff_tool(agent_name="b")
    asking = AIMessage("", name="a", tool_calls=[call("transfer_to_b", "h1")], id="a1")
    state = {"messages": [HumanMessage("hi", id="u1"), asking]}

    async def run() -> Any:
        asyncio.get_running_loop().set_default_executor(_NoThreads())
        return await handoff.ainvoke({"type": "tool_call", "name": "transfer_to_b",
                                      "args": {"state": state}, "id": "h1"})

    command = asyncio.run(run())
    assert command.goto == "b" and command.update["active_agent"] == "b"
    assert command.update["messages"][:2] == state["messages"]
    assert command.update["messages"][2].content == "Successfully transferred to b"


# ---------------------------------------------------------------- supervisor


def supervisor_models() -> dict[str, ScriptedChatModel]:
    """supervisor -> research (parallel calls, an error, two text blocks) -> supervisor
    -> writer -> supervisor."""
    return {
        "research": ScriptedChatModel(script=[
            reply([{"type": "text", "text": "Checking."}, {"type": "text", "text": HOSTILE}],
                  call("lookup_order", "r1", order_id=7), call("refund", "r2", order_id=7)),
            reply([{"type": "text", "text": "Order 7: charged twice;"},
                   {"type": "text", "text": "the refund needs approval."}]),
        ]),
        "writer": ScriptedChatModel(script=[reply("Dear customer, ...")]),
        "supervisor": ScriptedChatModel(script=[
            reply("", call("transfer_to_research", "s1")),
            reply("", call("transfer_to_writer", "s2")),
            reply("Done: see <content>x</content> below."),
        ]),
    }


def supervisor(models: dict[str, ScriptedChatModel], *, ours: bool = True,
               **options: Any) -> Any:
    """The supervisor with its OWN handoff tools; ours adds the prompt and middleware only."""
    middleware = [lg.HandoffMiddleware()] if ours else []
    research = create_agent(models["research"], [lookup_order, refund], name="research",
                            system_prompt="You research.", middleware=middleware)
    writer = create_agent(models["writer"], [], name="writer", system_prompt="You write.",
                          middleware=middleware)
    prompt = lg.handoff_prompt("supervisor", "You supervise.") if ours else "You supervise."
    with warnings.catch_warnings():  # create_supervisor makes a create_react_agent
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        return create_supervisor([research, writer], model=models["supervisor"],
                                 prompt=prompt, **options).compile()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_supervisor_with_its_own_handoff_tools_hands_one_summary(mode: str) -> None:
    models = supervisor_models()
    app = supervisor(models, output_mode="full_history")
    request_input = {"messages": [USER]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        out = (app.invoke(request_input) if mode == "invoke"
               else asyncio.run(app.ainvoke(request_input)))
    state = out["messages"]
    request = models["supervisor"].requests[1]
    # The supervisor's model: its prompt, ONE summary of research's whole run, the
    # handoff-back pair; nothing unanswered, no system message but its prompt.
    assert [type(m) for m in request] == [SystemMessage, lg.HandoffSummary, AIMessage,
                                          ToolMessage]
    assert unanswered(request) == []
    no_system_but(request, "You supervise.")
    (summary,) = summaries(request)
    run = lg.flatten([summary])
    research = [m for m in run if isinstance(m, AIMessage) and m.name == "research"]
    assert texts_of(research[0]) == ["Checking.", HOSTILE]
    assert [(c["id"], c["args"]) for c in research[0].tool_calls] == [
        ("r1", {"order_id": 7}), ("r2", {"order_id": 7})]
    assert {m.tool_call_id: m.status for m in run if isinstance(m, ToolMessage)} == {
        "s1": "success", "r1": "success", "r2": "error"}
    assert texts_of(research[1]) == ["Order 7: charged twice;", "the refund needs approval."]
    # The worker's model got the supervisor's part as a summary as well.
    assert [type(m) for m in models["writer"].requests[0]] == [
        SystemMessage, lg.HandoffSummary, AIMessage, ToolMessage]
    # The state keeps every message of every agent, in order.
    assert [m.tool_call_id for m in state if isinstance(m, ToolMessage)][:3] == [
        "s1", "r1", "r2"]
    assert state[0] == USER and state[-1].content == "Done: see <content>x</content> below."
    assert not any(lg.is_summary(m) for m in state)


def test_default_supervisor_loses_the_workers_calls_and_blocks() -> None:
    # Upstream: langgraph-supervisor #110, #185, PR #165 (last_message), and
    # agent_name.py (inline names). If this fails, update docs/frameworks.md.
    models = supervisor_models()
    supervisor(models, ours=False).invoke({"messages": [USER]})
    request = models["supervisor"].requests[1]
    ids = {c["id"] for m in request if isinstance(m, AIMessage) for c in m.tool_calls}
    assert {"r1", "r2"}.isdisjoint(ids)
    assert not any("Checking." in t for m in request for t in texts_of(m))

    models = supervisor_models()
    models["supervisor"].script[-1] = reply(
        "<name>supervisor</name><content>Done: see <content>x</content> below.</content>")
    out = supervisor(models, ours=False, include_agent_name="inline").invoke(
        {"messages": [USER]})
    request = models["supervisor"].requests[1]
    worker = next(m for m in request if isinstance(m, AIMessage) and m.name == "research")
    # Only the first text block reaches the model, wrapped without escaping.
    assert texts_of(worker) == ["<name>research</name><content>Order 7: charged twice;</content>"]
    # The supervisor's own answer is cut at the first </content> it holds.
    assert out["messages"][-1].content == "Done: see <content>x"
