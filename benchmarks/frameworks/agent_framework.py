"""Microsoft Agent Framework: what the receiving agent's model is sent, the default vs ours.

    python -m benchmarks.frameworks                  # the table, this row among the others
    python -m benchmarks.frameworks.agent_framework  # this framework's rows and its hop table

The row of the shared table is the conversation of ``examples/agent_framework_scripted.py``
(A -> B -> C: two parallel tool calls, one failing, an image, reasoning), run as a real
``HandoffBuilder`` workflow with scripted models. "default" is the workflow as the
framework builds it; "ours" adds one ``HandoffHistoryProvider`` to every agent. Counted
is what C's model is sent (every record of a summary counted as the model reads it):
turns (messages other than tool messages), tool calls, tool results, media parts, and
bytes.

The hop table runs ``chain(hops)`` of the same example module: agents take turns, each
saying a line, looking an order up and handing off without a word, ``hops`` times; the
last one is the receiver. With ``metadata`` every reply carries what a real chat client
attaches (message and response ids, provider fields, usage). Bytes are those of the
Chat Completions messages Agent Framework's own OpenAI client renders
(``agent-framework-openai``, ``_prepare_messages_for_openai``) for:

- native: the whole conversation with nothing dropped (every call and result), the
  lossless rendering ours is held to (at most 1.25 times its bytes);
- default: what the receiver's model is sent by the framework alone;
- ours: what it is sent with the provider.

Render cost is CPU time (``time.process_time``) of ours over the framework's own, the
median of ``repeat`` interleaved pairs, each timing a batch: ours is the provider's work
for the handoff, ``hand_on`` of the sender's response and ``rewrite`` of the receiver's
request as the framework built it (earlier summaries written once, as a conversation
goes); the framework's is ``clean_conversation_for_handoff`` of the conversation the
receiver is handed. The one-hop ratio is also the shared table's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from agent_framework import Message
from agent_framework_openai import OpenAIChatCompletionClient
from agent_framework_orchestrations import clean_conversation_for_handoff

from handoff_codec.integrations.agent_framework import (
    HandoffHistoryProvider,
    hand_on,
    is_summary,
    loads,
    thread,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from agent_framework_scripted import (
    NAMES,
    QUESTION,
    build_workflow,
    run_chain,
    run_conversation,
)

__all__ = ["counts", "measure", "measure_hops"]

MEDIA = frozenset({"data", "uri", "hosted_file", "hosted_vector_store"})
BATCH = 20  # renderings per timed batch: one takes well under a millisecond
HOPS = (1, 5, 10)
_OPENAI = OpenAIChatCompletionClient(model="gpt-4o", api_key="offline")


def request_bytes(messages: Sequence[Message]) -> int:
    """UTF-8 bytes of the Chat Completions messages Agent Framework's OpenAI client renders."""
    rendered = _OPENAI._prepare_messages_for_openai(list(messages))
    return len(json.dumps(rendered, ensure_ascii=False).encode())


def counts(messages: Sequence[Message]) -> dict[str, int]:
    """Turns, tool calls, tool results and media parts a model is sent, and their bytes."""
    out = {"turns": 0, "tool_calls": 0, "tool_results": 0, "media": 0}
    for message in messages:
        out["media"] += sum(content.type in MEDIA for content in message.contents)
        for inner in loads(message.text) if is_summary(message) else [message]:
            out["turns"] += inner.role != "tool" and bool(inner.text)
            out["tool_calls"] += sum(c.type == "function_call" for c in inner.contents)
            out["tool_results"] += sum(c.type == "function_result" for c in inner.contents)
    return {**out, "bytes": request_bytes(messages)}


def _median_ratio(ours: Callable[[], object], theirs: Callable[[], object],
                  repeat: int) -> float:
    """The median of ``repeat`` ratios ours/theirs, each pair timed in turn (order alternating)."""
    ratios = []
    gc.collect()
    gc.disable()
    try:
        for round_ in range(repeat):
            timed = {}
            for name, function in sorted((("ours", ours), ("theirs", theirs)),
                                         reverse=bool(round_ % 2)):
                start = time.process_time()
                for _ in range(BATCH):
                    function()
                timed[name] = time.process_time() - start
            ratios.append(timed["ours"] / timed["theirs"])
    finally:
        gc.enable()
    return statistics.median(ratios)


class _Capture(HandoffHistoryProvider):
    """Our provider; keeps the last request it rewrote for ``agent``, as the framework built it."""

    def __init__(self, agent: str) -> None:
        super().__init__(on_report=lambda report: None)
        self.agent = agent
        self.built: list[Message] = []

    def rewrite(self, messages: Sequence[Message], agent: str | None) -> list[Message] | None:
        if agent == self.agent:
            self.built = list(messages)
        return super().rewrite(messages, agent)


def _render_ratio(hops: int, repeat: int, metadata: bool) -> float:
    """Render cost of ours over the framework's own for the receiver of ``hops`` handoffs."""
    receiver, sender = NAMES[hops % 3], NAMES[(hops - 1) % 3]
    capture = _Capture(receiver)
    _, responses = asyncio.run(run_chain([capture], hops, metadata=metadata))
    said = thread(responses[:-1])  # as the framework alone holds them: no marks, no carriers
    handoff_turn = said[-4:]  # the sender's last run: a line and a lookup, then the handoff
    earlier = capture.built[:-1]  # the receiver's request before that run's one kept message
    conversation = [Message("user", [QUESTION]), *said]
    provider = HandoffHistoryProvider(on_report=lambda report: None)
    provider.rewrite(capture.built, receiver)  # the summaries written before this handoff

    def ours() -> None:
        # The sender's response marked (its one kept message, new each time, as a new
        # handoff's is), and the receiver's request with it.
        handed = hand_on(handoff_turn, sender)[:1]
        provider.rewrite([*earlier, *handed], receiver)

    def theirs() -> None:
        clean_conversation_for_handoff(conversation)

    return _median_ratio(ours, theirs, repeat)


def _framework() -> str:
    return (f"Agent Framework (orchestrations {version('agent-framework-orchestrations')}, "
            f"core {version('agent-framework-core')})")


def measure_hops(repeat: int) -> list[dict[str, Any]]:
    """One row per hop count and metadata setting: native, default and our bytes, and cost."""
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)
    rows = []
    for metadata in (False, True):
        for hops in HOPS:
            default, responses = asyncio.run(run_chain([], hops, metadata=metadata))
            ours, _ = asyncio.run(run_chain([HandoffHistoryProvider(
                on_report=lambda report: None)], hops, metadata=metadata))
            native = [Message("user", [QUESTION]), *responses[:-1]]
            rows.append({"framework": _framework(), "hops": hops, "metadata": metadata,
                         "native_bytes": request_bytes(native),
                         "default_bytes": request_bytes(default),
                         "ours_bytes": request_bytes(ours),
                         "render_ratio": _render_ratio(hops, repeat, metadata)})
    return rows


def _sent_to_c(providers: list[HandoffHistoryProvider]) -> list[Message]:
    workflow, clients = build_workflow(providers)
    asyncio.run(run_conversation(workflow))
    (sent,) = clients["c"].requests
    return sent


def measure(repeat: int) -> dict[str, Any]:
    """The shared table's row: C's model input under the framework's handoff and ours, and the
    render cost at one hop of the hop table."""
    logging.getLogger("agent_framework").setLevel(logging.CRITICAL)  # "Function refund failed"
    return {"framework": _framework(), "default": counts(_sent_to_c([])),
            "ours": counts(_sent_to_c([HandoffHistoryProvider(on_report=lambda r: None)])),
            "render_ratio": _render_ratio(1, repeat, False)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, allow_abbrev=False)
    parser.add_argument("--repeat", type=int, default=51,
                        help="interleaved timing pairs a row (default 51)")
    from benchmarks.frameworks.__main__ import hops_table

    print("\n".join(hops_table(parser.parse_args().repeat, ("agent_framework",))), flush=True)


if __name__ == "__main__":
    main()
