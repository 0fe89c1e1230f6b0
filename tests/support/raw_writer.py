"""The raw writer of openai-agents 0.6.0 to 0.17.0, and what its text holds of each item.

:func:`raw_summary` writes byte for byte what ``_build_summary_message`` of
openai-agents 0.6.0 to 0.17.0 wrote (agents/handoffs/history.py); the test
``test_the_raw_writer_writes_what_0_6_to_0_17_0_wrote`` checks it against those
releases' real output in tests/fixtures/legacy_summaries.jsonl. :func:`raw_holds`
is what its record of one item holds: the items a reader can give back at best.
"""

from __future__ import annotations

import json
from typing import Any

from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, grammar

__all__ = ["ITEM_TYPES", "Item", "raw_content", "raw_holds", "raw_record", "raw_summary"]

Item = dict[str, Any]
ITEM_TYPES = frozenset(grammar.alternatives("ITEM_TYPE", "legacy"))


def raw_record(item: Item) -> str:
    """One record as openai-agents 0.6.0 to 0.17.0 wrote it (``_format_transcript_item``): the
    role, ` (name)` for a non-empty str name, then `: ` and the content (a str as it is, None
    as nothing, anything else as JSON), or the bare role when that is empty; an item without a
    str role as `type: ` and its other keys as JSON (`item: ` when it has no type)."""
    role = item.get("role")
    if isinstance(role, str):
        name = item.get("name")
        prefix = f"{role} ({name})" if isinstance(name, str) and name else role
        text = raw_content(item.get("content"))
        return f"{prefix}: {text}" if text else prefix
    rest = {key: value for key, value in item.items() if key not in ("type", "provider_data")}
    return f"{item.get('type', 'item')}: {json.dumps(rest, ensure_ascii=False, default=str)}"


def raw_content(content: Any) -> str:
    """A message's content as the raw writer wrote it: a str as it is, None as nothing, any
    other value as its JSON."""
    if content is None:
        return ""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False,
                                                                default=str)


def raw_summary(items: list[Item]) -> str:
    """The whole summary text the raw writer wrote for ``items``."""
    records = [f"{n}. {raw_record(item)}" for n, item in enumerate(items, 1)] or [
        "(no previous turns recorded)"]
    return "\n".join([DEFAULT_PREAMBLE, DEFAULT_START, *records, DEFAULT_END])


def raw_holds(item: Item) -> Item:
    """What a raw 0.6 to 0.17.0 record holds of ``item``.

    A message: its role, non-empty str name and content as text (list content and `[...]`
    text are the same bytes; None and "" are both a bare role). An item without a role: its
    other keys as JSON gives them back (``provider_data`` is not written), with its type if
    it had one (`item: {...}` is an object without a type).
    """
    role = item.get("role")
    if isinstance(role, str):
        name = item.get("name")
        named = {"name": name} if isinstance(name, str) and name else {}
        return {"role": role, **named, "content": raw_content(item.get("content"))}
    rest = {key: value for key, value in item.items() if key not in ("type", "provider_data")}
    held: Item = json.loads(json.dumps(rest, ensure_ascii=False, default=str))
    return {**held, "type": item["type"]} if "type" in item else held
