"""Three agents hand a conversation on in Microsoft Agent Framework, offline.

    python examples/agent_framework_handoff.py

A ``HandoffBuilder`` workflow of agents A, B and C (see
``agent_framework_scripted.py``: scripted models, no network). A calls two
tools in parallel (one fails), the user sends an image, A thinks and hands off
to B, and B hands off to C. Every agent has the same
``HandoffHistoryProvider``, so C's model is sent the user's two messages as
they are and, in place of each run of A's and B's messages, ONE summary of
everything they said and did: tool calls, results and reasoning included.
The framework alone would have sent C the text of each turn and the image,
and none of the tool calls, results or reasoning. What the workflow keeps
(its outputs, each agent's history) stays the framework's own.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_framework_scripted import build_workflow, run_conversation

from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary, loads
from handoff_codec.integrations.report import Encoded


async def main() -> None:
    reports: list[Encoded] = []
    history = HandoffHistoryProvider(on_report=reports.append)
    workflow, clients = build_workflow([history])
    await run_conversation(workflow)

    sent = clients["c"].requests[0]
    print(f"C's model was sent {len(sent)} messages:")
    for message in sent:
        kinds = ", ".join(content.type for content in message.contents)
        print(f"  {message.role}{' (summary)' if is_summary(message) else ''}: [{kinds}]")
    for message in sent:
        if is_summary(message):
            print(message.text)
            print("read back:")
            for held in loads(message.text):
                parts = ", ".join(content.type for content in held.contents)
                print(f"  {held.role} ({held.author_name or '-'}): {parts}")
    omitted = {omission.field for report in reports for omission in report.omitted}
    print(f"not kept: {sorted(omitted) or 'nothing'}")


if __name__ == "__main__":
    asyncio.run(main())
