"""The item-level migration API: ``migrate_item``, ``migrate_items``, ``MigrationResult``."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Codec
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from handoff_codec.migrate import (
    MigrationResult,
    MigrationStatus,
    migrate_item,
    migrate_items,
    migrate_value,
)
from tests.support.migrate_support import (
    CRAFTED,
    NONCANONICAL_CURRENT,
    PLAIN,
    UNREADABLE,
    fixture_summaries,
    require_legacy_reader,
)


def test_the_item_rule_lives_in_migrate_only() -> None:
    assert not hasattr(handoff_codec, "migrate_item")
    assert "migrate_item" not in handoff_codec.__all__


@pytest.mark.parametrize("item", PLAIN, ids=lambda item: str(item.get("role", item.get("type"))))
def test_plain_items_pass_through_as_the_same_object(item: dict[str, Any]) -> None:
    result = migrate_item(item)
    assert result.status is MigrationStatus.NOT_SUMMARY
    assert result.item is item
    assert not result.changed and not result.is_summary


@pytest.mark.parametrize("value", [None, 3, "text", ["a"], {"content": "no role"}])
def test_non_items_are_not_summaries(value: Any) -> None:
    assert migrate_item(value).status == "not_summary"


def test_current_summary_is_already_current_and_not_copied() -> None:
    item = handoff_codec.format.summarize([{"role": "user", "content": "hi"},
                                    {"role": "assistant", "content": ""}])
    result = migrate_item(item)
    assert result.status == "already_current"
    assert result.item is item
    assert result.format == handoff_codec.Format.CURRENT


def test_noncanonical_current_summary_is_migrated_to_the_canonical_text() -> None:
    result = migrate_item(NONCANONICAL_CURRENT)
    assert result.status == "migrated"
    assert result.item["content"] == handoff_codec.dumps(
        handoff_codec.loads(NONCANONICAL_CURRENT["content"]))
    assert NONCANONICAL_CURRENT["content"] != result.item["content"]  # the input is unchanged


def test_unreadable_summary_is_left_untouched_with_a_reason() -> None:
    result = migrate_item(UNREADABLE)
    assert result.status == "untouched"
    assert result.item is UNREADABLE
    assert result.reason and "could not be read" in result.reason
    assert "line 3" in result.reason


@pytest.mark.parametrize("index", range(len(CRAFTED)))
def test_crafted_legacy_summary_is_migrated_keeping_every_other_key(index: int) -> None:
    require_legacy_reader()
    item = CRAFTED[index]
    result = migrate_item(item)
    assert result.status == "migrated", result.reason
    new = result.item
    assert list(new) == list(item)  # same keys, same order
    assert {k: v for k, v in new.items() if k != "content"} == {
        k: v for k, v in item.items() if k != "content"}
    # The canonical text holds exactly the items the legacy text held.
    legacy = handoff_codec.decode(item["content"])
    assert handoff_codec.decode(new["content"], strict=True).items == legacy.items
    assert new["content"] == handoff_codec.dumps(legacy.items)
    assert result.format is not None and result.format == legacy.format
    assert result.recoveries == legacy.recoveries


def test_bare_role_migration_records_the_lost_none_note() -> None:
    require_legacy_reader()
    result = migrate_item(CRAFTED[0])
    assert result.status == "migrated"
    assert not result.lossless
    assert any(r.kind.value == "bare_role" for r in result.recoveries)


def test_second_migration_is_already_current() -> None:
    require_legacy_reader()
    for item in [*CRAFTED, NONCANONICAL_CURRENT]:
        once = migrate_item(item).item
        assert migrate_item(once).status == "already_current"


def test_only_top_level_items_are_migrated() -> None:
    require_legacy_reader()
    quoted = {"role": "user", "content": CRAFTED[0]["content"]}
    assert migrate_item(quoted).status == "not_summary"
    tool_output = {"type": "function_call_output", "call_id": "x", "output": CRAFTED[0]}
    assert migrate_item(tool_output).status == "not_summary"


def test_custom_markers() -> None:
    codec = Codec(start="<H>", end="</H>")
    text = codec.summarize([{"role": "user", "content": "hi"}])["content"]
    legacy = {"role": "assistant", "content": text.replace("1. user: hi", "1. user: hi\n2. user")}
    assert migrate_item(legacy).status == "not_summary"  # not this codec's envelope
    result = migrate_item(legacy, codec=codec)
    if result.status == "untouched":
        pytest.skip(f"the lenient reader does not read bare roles yet: {result.reason}")
    assert result.status == "migrated"
    assert codec.loads(result.item["content"], strict=True) == [
        {"role": "user", "content": "hi"}, {"role": "user", "content": ""}]


def test_migrate_items_streams() -> None:
    consumed = []

    def endless() -> Iterator[dict[str, Any]]:
        for n in itertools.count():
            consumed.append(n)
            yield {"role": "user", "content": str(n)}

    results = migrate_items(endless())
    first = list(itertools.islice(results, 3))
    assert [r.item["content"] for r in first] == ["0", "1", "2"]
    assert consumed == [0, 1, 2]


def test_migrate_items_keeps_order_and_statuses() -> None:
    items = [PLAIN[0], NONCANONICAL_CURRENT, UNREADABLE, handoff_codec.format.summarize([])]
    statuses = [r.status.value for r in migrate_items(items)]
    assert statuses == ["not_summary", "migrated", "untouched", "already_current"]


def test_result_is_a_pydantic_model() -> None:
    result = migrate_item(NONCANONICAL_CURRENT)
    assert isinstance(result, MigrationResult)
    dumped = result.model_dump(mode="json")
    assert dumped["status"] == "migrated" and dumped["format"] == "current"


def test_migrate_value_handles_lists_and_keeps_unchanged_lists_identical() -> None:
    unchanged = [PLAIN[0], PLAIN[1]]
    outcome = migrate_value(unchanged)
    assert outcome.value is unchanged and not outcome.changed
    mixed = [PLAIN[0], NONCANONICAL_CURRENT]
    outcome = migrate_value(mixed)
    assert outcome.changed
    assert outcome.value[0] is PLAIN[0]
    assert outcome.value[1]["content"] != NONCANONICAL_CURRENT["content"]


def test_every_readable_fixture_summary_migrates_losslessly_and_idempotently() -> None:
    summaries = fixture_summaries()
    seen = {"migrated": 0, "already_current": 0}
    for version, case, summary in summaries:
        result = migrate_item(summary)
        assert result.status in ("migrated", "already_current"), (version, case, result.reason)
        seen[result.status.value] += 1
        before = handoff_codec.decode(summary["content"]).items
        after = handoff_codec.decode(result.item["content"], strict=True).items
        assert after == before, (version, case)
        assert migrate_item(result.item).status == "already_current", (version, case)
    assert seen["migrated"] > 0


def test_summary_with_a_line_that_is_no_record_is_left_untouched() -> None:
    """Rewriting would drop the prose line; the store keeps the old text instead."""
    content = "\n".join([DEFAULT_PREAMBLE, DEFAULT_START,
                         '1. {"content": "hi", "role": "user"}', "2. some prose, not a record",
                         "3. assistant",
                         DEFAULT_END])
    item = {"role": "assistant", "content": content}
    result = migrate_item(item)
    assert result.status is MigrationStatus.UNTOUCHED
    assert result.item is item
    assert result.reason is not None and "4" in result.reason
    # The control: the same summary without the prose line migrates.
    fine_content = content.replace("2. some prose, not a record\n3.", "2.")
    fine = {"role": "assistant", "content": fine_content}
    assert migrate_item(fine).status is MigrationStatus.MIGRATED
