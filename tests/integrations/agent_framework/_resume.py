"""A new process that resumes a checkpointed handoff workflow, for test_conversations.py.

    python -m tests.integrations.agent_framework._resume STORAGE REQUEST_ID [KEY]

New agents, new clients and a new ``HandoffHistoryProvider`` (its codec keyed with
``KEY`` when given); the workflow is restored from the latest checkpoint in
``STORAGE`` and the user answers ``REQUEST_ID``. Prints what agent A's model is
then sent, then what B's was, as JSON lines: each message's ``to_dict()`` and
whether it is a summary (which only this process can tell).
"""

from __future__ import annotations

import asyncio
import json
import sys

from agent_framework import Content, Message

from handoff_codec.format import Codec, default_codec
from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary
from tests.integrations.agent_framework._workflows import build_workflow, checkpoint_files

ANSWER = "The Visa ending 4242."


def scripts() -> dict[str, list[Message]]:
    """What the models say after the restore: B hands back to A, which answers."""
    return {"a": [Message("assistant", ["Refunded to the Visa."])],
            "b": [Message("assistant", [Content.from_function_call("h2", "handoff_to_a")])],
            "c": []}


async def main(storage_path: str, request_id: str, key: str | None = None) -> None:
    storage = checkpoint_files(storage_path)
    codec = Codec(key=key.encode()) if key else default_codec
    workflow, clients = build_workflow(
        [HandoffHistoryProvider(codec=codec, on_report=lambda r: None)], scripts(),
        checkpoint_storage=storage)
    latest = await storage.get_latest(workflow_name=workflow.name)
    assert latest is not None
    await workflow.run(checkpoint_id=latest.checkpoint_id, checkpoint_storage=storage,
                       responses={request_id: [Message("user", [ANSWER])]})
    for request in (clients["a"].requests[-1], clients["b"].requests[-1]):
        print(json.dumps([{"message": m.to_dict(), "summary": is_summary(m, codec=codec)}
                          for m in request]))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
