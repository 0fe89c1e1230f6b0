"""Ordinary conversations written by the raw 0.6 to 0.17.0 writer read quietly and exactly.

300 LLM-style conversations (tests/support/llm_conversations.py: markdown
numbered lists, bullets, headings, code blocks, tool calls with their outputs,
nothing adversarial), written by the raw writer, on both engines. Issue 39's
figures: at least 95% read with exit 0 (``decoded.lossless``) as exactly the
written items; none reads with exit 0 as other items; the written items are
offered (the reading or a candidate) in every one. ``tools/raw_writer_table.py``
prints the table for any number of them.
"""

from __future__ import annotations

from collections import Counter

import handoff_codec
from tests.format.read.summaries import Engine
from tests.support.llm_conversations import conversations
from tests.support.raw_writer import Item, raw_holds, raw_summary

CONVERSATIONS = conversations(300)


def verdict(items: list[Item], engine: Engine) -> str:
    """``exact`` (exit 0, the written items), ``offered`` (flagged, the written items the
    reading or a candidate), ``other`` (exit 0, other items) or ``lost`` (flagged, the
    written items nowhere)."""
    decoded = handoff_codec.decode(raw_summary(items), engine=engine)
    written = [raw_holds(item) for item in items]
    if decoded.lossless:
        return "exact" if decoded.items == written else "other"
    readings = [decoded.items, *(candidate.items for candidate in decoded.candidates)]
    return "offered" if written in readings else "lost"


def test_ordinary_conversations_read_quietly_as_written(engine: Engine) -> None:
    verdicts = {seed: verdict(items, engine) for seed, items in enumerate(CONVERSATIONS)}
    counts = Counter(verdicts.values())
    wrong = {seed: found for seed, found in verdicts.items() if found in ("other", "lost")}
    assert wrong == {}, (counts, sorted(wrong.items())[:10])  # the seeds to look at
    assert counts["exact"] >= 0.95 * len(CONVERSATIONS), counts


def test_the_conversations_are_the_same_for_the_same_seed() -> None:
    assert conversations(20) == conversations(20)
    assert conversations(5, first_seed=10) == CONVERSATIONS[10:15]
    kinds = Counter(item.get("role") or item.get("type") for items in CONVERSATIONS
                    for item in items)
    assert {"system", "user", "assistant", "function_call", "function_call_output"} <= set(kinds)
