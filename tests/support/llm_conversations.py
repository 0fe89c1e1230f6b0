"""LLM-style conversations, as an assistant and its tools produce them: nothing adversarial.

``conversation(seed)`` is one conversation, the same for the same seed
(``random.Random(seed)``, no other source of chance): sometimes a system prompt
first (a list of rules), then exchanges of user questions and assistant answers.
Answers are written as models write them: markdown numbered lists that start at
1 (``1. Speed: fast``, ``2. Cost: low``; whether a number continues the record
numbering depends on where the answer falls), bullet lists, headings, code
blocks with numbered lines, blank lines, several paragraphs. Tool calls come
with their outputs (``function_call`` then ``function_call_output``, the same
call_id), sometimes two in parallel, and a handoff ends some conversations with
its call and output. Names appear now and then.

The raw openai-agents 0.6 to 0.17.0 writer (tests/support/raw_writer.py) writes
these as its users' session stores hold them: content raw, line by line.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from tests.support.raw_writer import Item

__all__ = ["conversation", "conversations"]

TOPICS = ["the Oslo office move", "our PostgreSQL upgrade", "the billing export",
          "a refund for order 4412", "the onboarding checklist", "two laptop models",
          "the API rate limits", "the quarterly report", "a flaky CI job", "the pricing page"]
QUESTIONS = ["Can you summarise {t}?", "What are the options for {t}?",
             "How should I approach {t}?", "What changed in {t} since last week?",
             "Compare the plans for {t}, please.", "Any risks with {t}?",
             "Give me the steps for {t}."]
LABELS = ["Speed", "Cost", "Risk", "Timeline", "Owner", "Scope", "Support", "Security",
          "Performance", "Storage", "Price", "Battery", "Weight", "Status", "Next step",
          "Note", "Summary", "Impact", "Effort", "System"]
PHRASES = ["fast enough for daily use", "about 20% lower than today", "low, with a rollback plan",
           "two weeks, if the review goes well", "the platform team", "limited to the EU region",
           "included in the standard plan", "needs a review by security",
           "roughly the same as before", "500 GB, growing 5% a month", "$49 per seat",
           "done", "waiting on the vendor", "schedule a call with finance"]
STEPS = ["back up the database", "run the migration script", "check the logs for errors",
         "restart the service", "tell the team in the channel", "update the runbook",
         "open a ticket with the vendor", "verify the totals match", "close the old branch"]
OPENERS = ["Sure! Here is what I found.", "Good question.", "Here is a short overview:",
           "Happy to help.", "Based on the documents you shared:", "In short:"]
CLOSERS = ["Let me know if you want more detail.", "Want me to draft an email about it?",
           "I can go deeper on any of these.", "Hope this helps!"]
SYSTEM_PROMPTS = [
    "You are a helpful assistant for ACME Corp. Answer briefly and cite sources.",
    "You are the support agent.\nRules:\n1. Be polite.\n2. Never share internal URLs.\n"
    "3. Escalate billing questions to a human.",
    "You help the operations team.\n\nKeep answers short.",
]
TOOLS: list[tuple[str, Callable[[random.Random], dict[str, Any]]]] = [
    ("search_docs", lambda r: {"query": r.choice(TOPICS)}),
    ("get_weather", lambda r: {"city": r.choice(["Oslo", "Lima", "Kyoto"])}),
    ("lookup_order", lambda r: {"order_id": r.randint(1000, 9999)}),
    ("run_sql", lambda r: {"sql": "SELECT count(*) FROM users;"})]


def _numbered_list(rng: random.Random) -> str:
    count = rng.randint(2, 6)
    if rng.random() < 0.6:
        labels = rng.sample(LABELS, count)
        return "\n".join(f"{n}. {label}: {rng.choice(PHRASES)}"
                         for n, label in enumerate(labels, 1))
    steps = rng.sample(STEPS, count)
    return "\n".join(f"{n}. {step[0].upper()}{step[1:]}." for n, step in enumerate(steps, 1))


def _bullets(rng: random.Random) -> str:
    mark = rng.choice(["-", "*"])
    return "\n".join(f"{mark} {rng.choice(PHRASES)}" for _ in range(rng.randint(2, 4)))


def _code(rng: random.Random) -> str:
    if rng.random() < 0.5:
        lines = [f"{n}. {step}" for n, step in enumerate(rng.sample(STEPS, 3), 1)]
        return "```text\n" + "\n".join(lines) + "\n```"
    return ("```python\nimport psycopg\n\nwith psycopg.connect(DSN) as conn:\n"
            "    rows = conn.execute(\"SELECT 1\").fetchall()\n```")


def _answer(rng: random.Random) -> str:
    parts = [rng.choice(OPENERS)]
    for _ in range(rng.randint(1, 3)):
        block = rng.choice(["list", "list", "bullets", "heading", "code", "paragraph"])
        if block == "list":
            parts.append(_numbered_list(rng))
        elif block == "bullets":
            parts.append(_bullets(rng))
        elif block == "heading":
            label = rng.choice(LABELS)
            parts.append(rng.choice([f"## {label}", f"### {label}", f"**{label}:**"]))
        elif block == "code":
            parts.append(_code(rng))
        else:
            parts.append(f"The main point is that {rng.choice(TOPICS)} is "
                         f"{rng.choice(PHRASES)}.")
    if rng.random() < 0.5:
        parts.append(rng.choice(CLOSERS))
    joiner = "\n\n" if rng.random() < 0.6 else "\n"
    return joiner.join(parts)


def _question(rng: random.Random) -> str:
    question = rng.choice(QUESTIONS).format(t=rng.choice(TOPICS))
    if rng.random() < 0.2:
        question += "\nContext: " + rng.choice(PHRASES) + ".\nThanks!"
    elif rng.random() < 0.1:
        question = f"Short one: {question.lower()}"
    return question


def _tool_calls(rng: random.Random, number: int) -> list[Item]:
    calls, outputs = [], []
    for index in range(rng.choice([1, 1, 1, 2])):
        name, arguments = rng.choice(TOOLS)
        call_id = f"call_{number}_{index}"
        calls.append({"type": "function_call", "call_id": call_id, "name": name,
                      "arguments": json.dumps(arguments(rng))})
        result = rng.choice([json.dumps({"ok": True, "count": rng.randint(0, 99)}),
                             "1. first hit\n2. second hit", rng.choice(PHRASES)])
        outputs.append({"type": "function_call_output", "call_id": call_id, "output": result})
    return calls + outputs


def conversation(seed: int) -> list[Item]:
    """One conversation, the same for the same seed."""
    rng = random.Random(seed)
    items: list[Item] = []
    if rng.random() < 0.3:
        items.append({"role": "system", "content": rng.choice(SYSTEM_PROMPTS)})
    user_name = {"name": "alice"} if rng.random() < 0.1 else {}
    agent_name = {"name": rng.choice(["support_agent", "Triage Agent"])} \
        if rng.random() < 0.15 else {}
    for exchange in range(rng.randint(1, 4)):
        items.append({"role": "user", **user_name, "content": _question(rng)})
        if rng.random() < 0.35:
            items.extend(_tool_calls(rng, exchange))
        items.append({"role": "assistant", **agent_name, "content": _answer(rng)})
    if rng.random() < 0.2:
        items.append({"type": "function_call", "call_id": "call_handoff",
                      "name": "transfer_to_billing_agent", "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": "call_handoff",
                      "output": json.dumps({"assistant": "Billing Agent"})})
    return items


def conversations(n: int, first_seed: int = 0) -> list[list[Item]]:
    """``n`` conversations, of seeds ``first_seed`` to ``first_seed + n - 1``."""
    return [conversation(seed) for seed in range(first_seed, first_seed + n)]
