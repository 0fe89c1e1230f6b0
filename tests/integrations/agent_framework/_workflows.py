"""What the Agent Framework tests share: running the scripted workflows, reading what a model got.

The workflows are real ``HandoffBuilder`` workflows (agent-framework-core,
agent-framework-orchestrations); only the models are scripted
(``examples/agent_framework_scripted.py``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_framework import Content, ContextProvider, FileCheckpointStorage, Message
from agent_framework_openai import OpenAIChatCompletionClient

from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary, loads

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "examples"))

from agent_framework_scripted import (  # noqa: E402  (the examples, on the path above)
    HOSTILE,
    IMAGE,
    NAMES,
    QUESTION,
    ScriptedChatClient,
    build_workflow,
    chain,
    lookup_order,
    replies,
    run_chain,
    run_conversation,
)

__all__ = ["HOSTILE", "IMAGE", "NAMES", "QUESTION", "ROOT", "ScriptedChatClient",
           "build_workflow", "chain", "checkpoint_files", "contents", "dicts", "lookup_order",
           "openai_request_bytes", "quiet", "replies", "run", "run_chain", "run_conversation",
           "seen", "summaries", "unpaired_calls"]

_OPENAI = OpenAIChatCompletionClient(model="gpt-4o", api_key="offline")


def dicts(messages: Sequence[Message]) -> list[dict[str, Any]]:
    return [message.to_dict() for message in messages]


def contents(messages: Sequence[Message], kind: str) -> list[Content]:
    return [content for message in messages for content in message.contents
            if content.type == kind]


def quiet() -> HandoffHistoryProvider:
    """A provider whose reports are kept, not logged."""
    return HandoffHistoryProvider(on_report=lambda report: None)


def run(providers: Sequence[ContextProvider],
        scripts: dict[str, list[Message]] | None = None) -> dict[str, ScriptedChatClient]:
    """The three-agent conversation of the example; the clients by agent name."""
    workflow, clients = build_workflow(providers, scripts)
    asyncio.run(run_conversation(workflow))
    return clients


def checkpoint_files(path: str | Path) -> FileCheckpointStorage:
    """Checkpoints as files in ``path``. A ``HandoffBuilder`` workflow waiting for the user
    holds a request whose response type is ``list[Message]``, a ``types.GenericAlias``
    that FileCheckpointStorage 1.26 refuses to read back unless allowed."""
    return FileCheckpointStorage(path, allowed_checkpoint_types=["types:GenericAlias"])


def summaries(request: Sequence[Message]) -> list[list[Message]]:
    """The messages each summary in ``request`` holds, read back."""
    return [loads(message.contents[0].text or "") for message in request if is_summary(message)]


def seen(request: Sequence[Message]) -> list[Message]:
    """What a model reads in ``request``: each summary as the messages it holds."""
    return [held for message in request
            for held in (loads(message.text) if is_summary(message) else [message])]


def openai_request_bytes(messages: Sequence[Message]) -> int:
    """UTF-8 bytes of the Chat Completions messages Agent Framework's OpenAI client would send."""
    rendered = _OPENAI._prepare_messages_for_openai(list(messages))
    return len(json.dumps(rendered, ensure_ascii=False).encode())


def unpaired_calls(request: Sequence[Message]) -> list[str]:
    """What providers reject in ``request``: a call whose result is not in the tool messages
    right after it, a result with no call before it; named by call id."""
    open_calls: list[str] = []
    problems: list[str] = []
    for message in request:
        if message.role != "tool" and open_calls:
            problems += [f"call {call_id} without a result" for call_id in open_calls]
            open_calls = []
        for content in message.contents:
            if content.type == "function_call" and content.call_id:
                open_calls.append(content.call_id)
            elif content.type == "function_result":
                if content.call_id in open_calls:
                    open_calls.remove(content.call_id)
                else:
                    problems.append(f"result {content.call_id} without its call before it")
    return problems + [f"call {call_id} without a result" for call_id in open_calls]
