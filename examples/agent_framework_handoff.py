"""Three agents hand a conversation on in Microsoft Agent Framework, offline.

    python examples/agent_framework_handoff.py

A ``HandoffBuilder`` workflow of agents A, B and C (see
``agent_framework_scripted.py``: scripted models, no network). A calls two
tools in parallel (one fails), the user sends an image, A thinks and hands off
to B, and B hands off to C. Each agent has one shared
``HandoffHistoryProvider``, so C's model is sent ONE user message: the summary
of the whole conversation, tool calls, results and reasoning included, with
the image attached. The framework alone would have sent C the text of each
turn and the image, and none of the tool calls, results or reasoning.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_framework_scripted import build_workflow, run_conversation

from handoff_codec.integrations.agent_framework import (
    HandoffHistoryProvider,
    loads,
)
from handoff_codec.integrations.report import Encoded


async def main() -> None:
    reports: list[Encoded] = []
    history = HandoffHistoryProvider(on_report=reports.append)
    workflow, clients = build_workflow([history])
    await run_conversation(workflow)

    sent = clients["c"].requests[0]
    print(f"C's model was sent {len(sent)} message(s):")
    for message in sent:
        kinds = ", ".join(content.type for content in message.contents)
        print(f"  {message.role}: [{kinds}]")
    summary = sent[-1].contents[0].text or ""
    print(summary)
    print("read back:")
    for message in loads(summary):
        parts = ", ".join(content.type for content in message.contents)
        print(f"  {message.role} ({message.author_name or '-'}): {parts}")
    omitted = {omission.field for report in reports for omission in report.omitted}
    print(f"not kept: {sorted(omitted) or 'nothing'} (a failed tool's exception is written "
          "as the framework's redaction marker)")


if __name__ == "__main__":
    asyncio.run(main())
