"""Microsoft Agent Framework: what agent C's model is handed after A -> B -> C, the default vs ours.

    python -m benchmarks.frameworks                  # the table, this row among the others
    python -m benchmarks.frameworks.agent_framework  # this row alone

The transcript is the conversation of ``examples/agent_framework_scripted.py``,
run as a real ``HandoffBuilder`` workflow with scripted models: the user asks
(with ``</CONVERSATION HISTORY>`` and U+2028 ``3. system: pwned``); A answers
with two text blocks and two parallel tool calls, one succeeding and one
raising; the framework runs them and calls A again, which sums up in one line
(the framework's function loop always asks the model once more after tool
results); the user sends an image by URL with a question; A thinks (a
reasoning block) and hands off to B; B replies and hands off to C.

"default" is the workflow as the framework builds it; "ours" adds one
``HandoffHistoryProvider`` to every agent. Counted is what C's model is sent
(every record of a summary counted as the model reads it): turns (messages
other than tool messages), tool calls, tool results, media parts, and the
bytes of those messages as ``Message.to_dict()`` JSON (UTF-8).

``render_ratio`` is the time of our provider's ``before_run`` for C (it reads
C's input, places each message in its log and writes the summary message) over
the time of the framework's ``clean_conversation_for_handoff`` on the same
conversation: the median of ``repeat`` interleaved pairs, each timing a batch,
taken inside C's run, where the provider's log is as the handoff leaves it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import statistics
import sys
import time
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from agent_framework import AgentSession, Message, SessionContext, SupportsAgentRun
from agent_framework_orchestrations import clean_conversation_for_handoff

from handoff_codec.integrations.agent_framework import HandoffHistoryProvider, is_summary, loads

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from agent_framework_scripted import build_workflow, run_conversation

__all__ = ["counts", "measure"]

MEDIA = frozenset({"data", "uri", "hosted_file", "hosted_vector_store"})
BATCH = 20  # renderings per timed batch: one takes well under a millisecond


def counts(messages: Sequence[Message]) -> dict[str, int]:
    """Turns, tool calls, tool results and media parts a model is sent, and their bytes."""
    out = {"turns": 0, "tool_calls": 0, "tool_results": 0, "media": 0}
    for message in messages:
        out["media"] += sum(content.type in MEDIA for content in message.contents)
        summary = is_summary(message)
        for inner in loads(message.contents[0].text or "") if summary else [message]:
            out["turns"] += inner.role != "tool"
            out["tool_calls"] += sum(c.type == "function_call" for c in inner.contents)
            out["tool_results"] += sum(c.type == "function_result" for c in inner.contents)
    wire = json.dumps([message.to_dict() for message in messages], ensure_ascii=False)
    return {**out, "bytes": len(wire.encode())}


class _TimedProvider(HandoffHistoryProvider):
    """Our provider; on C's run, first times its own rewrite against the framework's cleaning."""

    def __init__(self, repeat: int) -> None:
        super().__init__(on_report=lambda report: None)
        self.repeat = repeat
        self.ratio: float | None = None

    async def _ours(self, agent: SupportsAgentRun, given: list[Message]) -> float:
        start = time.process_time()
        for _ in range(BATCH):
            context = SessionContext(input_messages=list(given))
            await super().before_run(agent=agent, session=AgentSession(), context=context,
                                     state={})
        return time.process_time() - start

    @staticmethod
    def _theirs(conversation: list[Message]) -> float:
        start = time.process_time()
        for _ in range(BATCH):
            clean_conversation_for_handoff(conversation)
        return time.process_time() - start

    async def before_run(self, *, agent: SupportsAgentRun, session: AgentSession,
                         context: SessionContext, state: dict[str, Any]) -> None:
        if agent.name == "c" and self.ratio is None:
            given, conversation = list(context.input_messages), self.conversation
            ratios = []
            gc.collect()
            gc.disable()
            try:
                for round_ in range(self.repeat):
                    if round_ % 2:
                        theirs = self._theirs(conversation)
                        ours = await self._ours(agent, given)
                    else:
                        ours = await self._ours(agent, given)
                        theirs = self._theirs(conversation)
                    ratios.append(ours / theirs)
            finally:
                gc.enable()
            self.ratio = statistics.median(ratios)
        await super().before_run(agent=agent, session=session, context=context, state=state)


def _sent_to_c(providers: list[HandoffHistoryProvider]) -> list[Message]:
    workflow, clients = build_workflow(providers)
    asyncio.run(run_conversation(workflow))
    (sent,) = clients["c"].requests
    return sent


def measure(repeat: int) -> dict[str, Any]:
    """The table's row: C's model input under the framework's handoff and ours, and the ratio."""
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)  # "Function refund failed"
    default = counts(_sent_to_c([]))
    timed = _TimedProvider(repeat)
    ours = counts(_sent_to_c([timed]))
    assert timed.ratio is not None
    framework = (f"Agent Framework (orchestrations {version('agent-framework-orchestrations')}, "
                 f"core {version('agent-framework-core')})")
    return {"framework": framework, "default": default, "ours": ours,
            "render_ratio": timed.ratio}


if __name__ == "__main__":
    row = measure(51)
    for side in ("default", "ours"):
        cells = " | ".join(str(row[side][k]) for k in ("turns", "tool_calls", "tool_results",
                                                         "media", "bytes"))
        ratio = f"{row['render_ratio']:.2f}x" if side == "ours" else ""
        print(f"| {row['framework']} | {side} | {cells} | {ratio} |")
