"""Promise 3: per conversation and checkpointed.

One provider and one set of agents, built once, serve conversations that run at
the same time, each in its own ``HandoffBuilder`` workflow: a receiver is handed
only its own conversation. A workflow checkpointed to files and resumed in a new
process, with new agents and a new provider, goes on with a valid history.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("agent_framework_orchestrations")

from agent_framework import Agent, Content, Message
from agent_framework_orchestrations import HandoffBuilder

from handoff_codec.format import Codec
from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary, loads
from tests.integrations.agent_framework._resume import ANSWER
from tests.integrations.agent_framework._workflows import (
    ROOT,
    ScriptedChatClient,
    build_workflow,
    checkpoint_files,
    contents,
    quiet,
    unpaired_calls,
)

NAMES = ["Alice", "Bob", "Carol", "Dan", "Erin", "Frank"]


def _speaker(agent: str) -> ScriptedChatClient:
    """A client shared by every conversation: it answers for the user it finds in the request."""
    def answer(request: list[Message]) -> Message:
        user = re.search(r"I am (\w+)", request[0].text).group(1)  # type: ignore[union-attr]
        if agent == "a":
            return Message("assistant", [Content.from_text(f"a: done for {user}."),
                                         Content.from_function_call(f"h-{user}", "handoff_to_b")])
        return Message("assistant", [f"b: hello {user}."])
    return ScriptedChatClient(answer)


@pytest.mark.parametrize("conversations", [2, 6])
def test_one_provider_serves_conversations_at_once_and_none_leaks(conversations: int) -> None:
    # A provider shared by two conversations leaked: Bob's B was handed "a: done for
    # Alice." (issue 38). Agents are built once, at startup; each conversation builds
    # its own workflow, and they run interleaved.
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    history = quiet()
    clients = {name: _speaker(name) for name in "ab"}
    agents = [Agent(client=clients[name], name=name, context_providers=[history],
                    require_per_service_call_history_persistence=True) for name in "ab"]
    users = NAMES[:conversations]

    async def converse(user: str) -> None:
        workflow = HandoffBuilder(participants=agents).with_start_agent(agents[0]).build()
        await workflow.run([Message("user", [f"I am {user}."])])

    async def all_at_once() -> None:
        await asyncio.gather(*(converse(user) for user in users))

    asyncio.run(all_at_once())
    b_requests = clients["b"].requests
    assert len(b_requests) == conversations
    for request in [*clients["a"].requests, *b_requests]:
        user = re.search(r"I am (\w+)", request[0].text).group(1)  # type: ignore[union-attr]
        said = "\n".join(m.text for m in request)
        assert [other for other in users if other != user and other in said] == []
    for request in b_requests:
        user = re.search(r"I am (\w+)", request[0].text).group(1)  # type: ignore[union-attr]
        (summary,) = [loads(m.text) for m in request if is_summary(m)]
        assert [m.text for m in summary if m.text] == [f"a: done for {user}."]
        assert [c.call_id for c in contents(summary, "function_call")] == [f"h-{user}"]


def _first_half() -> dict[str, list[Message]]:
    """A looks the order up and hands off to B, which asks the user a question."""
    return {"a": [Message("assistant", [Content.from_text("Let me look."),
                                        Content.from_function_call("t1", "lookup_order",
                                                                   arguments={"order_id": 7})]),
                  Message("assistant", [Content.from_function_call("h1", "handoff_to_b")])],
            "b": [Message("assistant", ["Which card did you pay with?"])],
            "c": []}


@pytest.mark.parametrize("key", [None, "the app's key"], ids=["no key", "codec key"])
def test_a_checkpoint_resumed_in_a_new_process_goes_on_with_a_valid_history(
        tmp_path: Path, key: str | None) -> None:
    # Restored in a new process, A's next request held its own handoff_to_b call without
    # its result, and the user's answer came before B's question (issue 38).
    logging.getLogger("agent_framework").setLevel(logging.ERROR)
    storage = checkpoint_files(tmp_path)
    codec = Codec(key=key.encode()) if key else None
    workflow, _ = build_workflow([HandoffHistoryProvider(codec=codec, on_report=lambda r: None)],
                                 _first_half(), checkpoint_storage=storage)
    result = asyncio.run(workflow.run([Message("user", ["Order 7 was charged twice."])]))
    (pending,) = result.get_request_info_events()
    out = subprocess.run([sys.executable, "-m", "tests.integrations.agent_framework._resume",
                          str(tmp_path), pending.request_id, *([key] if key else [])],
                         cwd=ROOT, capture_output=True, text=True, check=False, timeout=300)
    assert out.returncode == 0, out.stderr
    a_sent, b_sent = (json.loads(line) for line in out.stdout.strip().splitlines()[-2:])
    # B, run again after the restore: A's turn before it, handed on in the first process.
    # Its records are read under the codec's key; without one, the first process's key is
    # gone, and B is sent A's turn as the framework handed it on: its text only.
    b_request = [Message.from_dict(entry["message"]) for entry in b_sent]
    assert unpaired_calls(b_request) == []
    b_read = [m for entry, m in zip(b_sent, b_request, strict=True)
              for m in (loads(m.text) if entry["summary"] else [m])]
    assert [c.call_id for c in contents(b_read, "function_call")] == (
        ["t1", "h1"] if key else [])
    assert [m.text for m in b_read if m.author_name == "a" and m.text] == ["Let me look."]
    sent = a_sent
    request = [Message.from_dict(entry["message"]) for entry in sent]
    flags = [entry["summary"] for entry in sent]
    assert unpaired_calls(request) == []
    assert [c.call_id for c in contents(request, "function_call")] == ["t1", "h1"]
    # In the order it happened: the user's message, A's own turn, B's question, the user's
    # answer to it, B's handing back.
    happened: list[str] = []
    for message, summary in zip(request, flags, strict=True):
        if not summary:
            happened.append(message.text if message.role == "user" else f"({message.role})")
            continue
        for held in loads(message.text):
            happened += [held.text] if held.text else [
                f"{c.type} {c.call_id}" for c in held.contents]
    assert happened == [
        "Order 7 was charged twice.", "(assistant)", "(tool)", "(assistant)", "(tool)",
        "Which card did you pay with?", ANSWER, "function_call h2", "function_result h2"]
