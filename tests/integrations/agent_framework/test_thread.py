"""Promise 4: the conversation the framework keeps, and a UI shows, stays whole.

Only what a model is sent changes. The workflow's checkpointed state (each agent's
conversation and session history) and its outputs hold every message the framework
holds without the provider; ``thread`` takes off the only things it adds (the
records it hands on, and a carrier in a turn that said nothing).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import InMemoryCheckpointStorage, Message

import handoff_codec
from handoff_codec.integrations.agent_framework import is_summary, thread
from tests.integrations.agent_framework._workflows import (
    build_workflow,
    dicts,
    quiet,
    run_conversation,
)


def _kept(providers: list[Any]) -> tuple[dict[str, dict[str, list[Message]]], list[Message]]:
    """What the framework keeps after the example conversation: per agent, its conversation
    and its session's history (from the last checkpoint); and the outputs' messages."""
    storage = InMemoryCheckpointStorage()
    workflow, _ = build_workflow(providers, checkpoint_storage=storage)
    outputs: list[Message] = []

    async def converse() -> None:
        original = workflow.run

        async def run(*args: Any, **kwargs: Any) -> Any:
            result = await original(*args, **kwargs)
            outputs.extend(m for output in result.get_outputs() for m in output.messages)
            return result

        workflow.run = run  # type: ignore[method-assign]
        await run_conversation(workflow)

    asyncio.run(converse())
    checkpoint = asyncio.run(storage.get_latest(workflow_name=workflow.name))
    assert checkpoint is not None
    kept = {
        agent: {"conversation": list(state["full_conversation"]),
                "history": [Message.from_dict(m) for m in
                            state["agent_session"]["state"]["in_memory"]["messages"]]}
        for agent, state in checkpoint.state["_executor_state"].items()}
    return kept, outputs


def _same(messages: list[Message]) -> list[dict[str, Any]]:
    """``to_dict()`` of each message but the ids the framework draws at random for each run
    (a function call's ``af-call-...``)."""
    def drop(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items()
                    if not (k == "id" and str(v).startswith("af-call-"))}
        return [drop(v) for v in value] if isinstance(value, list) else value
    return [drop(entry) for entry in dicts(messages)]


def test_the_kept_conversation_and_outputs_are_the_frameworks_own() -> None:
    default, default_outputs = _kept([])
    ours, our_outputs = _kept([quiet()])
    assert _same(thread(our_outputs)) == _same(default_outputs)
    for agent in ("a", "b", "c"):
        for part in ("conversation", "history"):
            kept = ours[agent][part]
            assert not any(is_summary(m) or handoff_codec.format.DEFAULT_START in m.text
                           for m in kept), (agent, part)
            assert _same(thread(kept)) == _same(default[agent][part]), (agent, part)
    # The user's own turns are all there, in C's history as in the default's.
    users = [m.text for m in ours["c"]["history"] if m.role == "user"]
    assert users == [m.text for m in default["c"]["history"] if m.role == "user"]
    assert len(users) == 2


def test_thread_leaves_what_the_provider_did_not_touch() -> None:
    message = Message("assistant", ["hi"], author_name="a", additional_properties={"k": 1})
    assert thread([message]) == [message]
