"""Issue 39's acceptance 3: ordinary LLM-style conversations written by openai-agents
0.6.0 to 0.17.0 read quietly as written (tests/fixtures/llm_conversations.py)."""

from __future__ import annotations

from tests.fixtures.llm_conversations import table


def test_llm_conversations_read_as_written() -> None:
    counts = table(400)
    assert counts["exit 0, exactly the written items"] >= 0.95 * counts["conversations"]
    assert counts["exit 0, other items"] == 0
    # Measured 997 of 1,000: a read that offers nothing else is an answer whose first
    # line is a numbered list continuing the record numbers (no line proves the raw writer).
    assert counts["written items offered"] >= 0.99 * counts["conversations"]
