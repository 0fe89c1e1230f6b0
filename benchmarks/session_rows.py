"""The rows the migration benchmarks store: legacy summaries and ordinary items.

``benchmarks.migrate`` (SQLite files) and ``benchmarks.migrate_servers``
(server stores) fill their stores with these, and ``benchmarks.codec`` times
the codec on the same legacy summaries.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["PREAMBLE", "WORDS", "legacy_summary", "ordinary_item"]

PREAMBLE = "For context, here is the conversation so far between the user and the previous agent:"
WORDS = ("the", "agent", "asked", "for", "invoice", "number", "and", "user", "replied", "with",
         "order", "details", "so", "billing", "can", "check", "refund", "policy", "before",
         "handoff")


def legacy_summary(rng: random.Random, turns: int) -> dict[str, Any]:
    """A summary as openai-agents 0.6-0.17.0 or 0.17.1-0.19 wrote it."""
    json_records = rng.random() < 0.5  # 0.17.1-0.19 wrote JSON records

    def text(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    records: list[str] = []
    while len(records) < turns:
        number = len(records) + 1
        role = rng.choice(("user", "assistant"))
        kind = rng.random()
        if kind < 0.1:  # an empty turn: a bare role in every legacy writer
            records.append(f"{number}. {role}")
        elif kind < 0.25:  # multi-line content
            content = "\n".join(text(3, 10) for _ in range(rng.randint(2, 4)))
            if json_records:
                records.append(f"{number}. " + json.dumps({"role": role, "content": content},
                                                          ensure_ascii=False))
            else:
                records.append(f"{number}. {role}: {content}")
        elif kind < 0.35:  # a tool call, and the output that answers it (as the SDK's
            # transcripts hold them: a handoff is a tool call too)
            call = {"call_id": f"call_{number}", "name": "lookup_order",
                    "arguments": json.dumps({"query": text(2, 5)})}
            output = {"call_id": f"call_{number}", "output": text(3, 12)}
            if json_records:
                records.append(f"{number}. " + json.dumps({"type": "function_call", **call}))
                records.append(f"{number + 1}. " + json.dumps(
                    {"type": "function_call_output", **output}))
            else:
                records.append(f"{number}. function_call: {json.dumps(call)}")
                records.append(f"{number + 1}. function_call_output: {json.dumps(output)}")
        else:
            records.append(f"{number}. {role}: {text(8, 30)}")
    content = "\n".join((PREAMBLE, "<CONVERSATION HISTORY>", *records,
                         "</CONVERSATION HISTORY>"))
    return {"role": "assistant", "content": content}


def ordinary_item(rng: random.Random, number: int) -> dict[str, Any]:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
    kind = rng.random()
    if kind < 0.4:
        return {"role": "user", "content": text}
    if kind < 0.7:
        return {"id": f"msg_{number}", "type": "message", "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    if kind < 0.85:
        return {"type": "function_call", "call_id": f"call_{number}", "name": "lookup_order",
                "arguments": json.dumps({"query": text[:40]})}
    return {"type": "function_call_output", "call_id": f"call_{number}", "output": text}
