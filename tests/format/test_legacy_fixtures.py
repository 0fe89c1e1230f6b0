"""Every turn that old openai-agents writers emitted is recovered from their summaries."""

from __future__ import annotations

from typing import Any

import pytest

import handoff_codec
from handoff_codec import Format, RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from tests.support.legacy_fixtures import (
    NESTED,
    ROWS,
    SINGLE,
    records_written,
    release,
    row_id,
    turns,
    writer_dropped,
)

ENVELOPE = [DEFAULT_PREAMBLE, DEFAULT_START]


@pytest.mark.parametrize("row", SINGLE, ids=row_id)
def test_every_turn_of_every_version_is_recovered(row: dict[str, Any]) -> None:
    decoded = handoff_codec.decode(row["summary"]["content"])
    assert turns(decoded.items) == turns(row["transcript"])
    assert decoded.complete
    lost = {r.kind for r in decoded.recoveries if r.lost}
    for original, ours in zip(row["transcript"], decoded.items, strict=True):
        if ours == original:
            continue
        reason = writer_dropped(original, ours, row["version"])
        if reason is None:
            # Anything else must be named as lost by the report.
            assert original.get("content") in (None, "") or isinstance(
                original.get("content"), list
            )
            assert lost & {RecoveryKind.BARE_ROLE, RecoveryKind.ARRAY_AS_TEXT}, (original, ours)


@pytest.mark.parametrize("row", NESTED, ids=row_id)
def test_every_record_of_a_second_hop_summary_is_read(row: dict[str, Any]) -> None:
    """Old readers dropped turns in the first hop; what the writer then wrote is all read."""
    content = row["summary"]["content"]
    decoded = handoff_codec.decode(content)
    assert decoded.complete
    assert len(decoded.items) == records_written(content)


def test_the_sdk_reader_loses_turns_that_we_recover() -> None:
    """The control: the fixtures do hold turns that the newest SDK reader drops."""
    from tests.support.sdk import sdk_read

    dropped = [
        row_id(row)
        for row in SINGLE
        if len(sdk_read(row["summary"]) or []) != len(row["transcript"])
    ]
    assert dropped


def test_prose_guard() -> None:
    """A numbered line of prose without a separator, in sequence, is not a turn."""
    text = "\n".join(
        [
            *ENVELOPE,
            "1. user: hi",
            "2. this is some prose without a separator",
            "3. assistant: ok",
            DEFAULT_END,
        ]
    )
    decoded = handoff_codec.decode(text)
    assert decoded.items == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok"},
    ]
    assert not decoded.complete
    assert [r.kind for r in decoded.recoveries] == [RecoveryKind.UNRECOGNISED]
    assert decoded.recoveries[0].line == 4


def test_prose_guard_control_bare_role_is_recovered() -> None:
    text = "\n".join(
        [*ENVELOPE, "1. user: hi", "2. assistant (bot)", "3. user: ok", DEFAULT_END]
    )
    decoded = handoff_codec.decode(text)
    assert decoded.items[1] == {"role": "assistant", "name": "bot", "content": ""}
    assert decoded.complete
    assert [(r.kind, r.lost) for r in decoded.recoveries] == [(RecoveryKind.BARE_ROLE, True)]
    # 0.6 to 0.19 all wrote bare roles: the label names both generations, never one.
    assert decoded.format is Format.LEGACY
    assert decoded.candidates == (Format.LEGACY_0_6, Format.LEGACY_0_17_1)


def generation(version: str) -> Format:
    if release(version) < (0, 17, 1):
        return Format.LEGACY_0_6
    return Format.LEGACY_0_17_1 if release(version) < (0, 20) else Format.CURRENT


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_the_format_label_never_rules_out_the_writer(row: dict[str, Any]) -> None:
    """The label is the writer's generation, or ``legacy`` with it among the
    candidates, or ``current`` for text in the current format (which every
    writer writes for some transcripts)."""
    decoded = handoff_codec.decode(row["summary"]["content"])
    wrote = generation(row["version"])
    if decoded.format is Format.CURRENT and wrote is not Format.CURRENT:
        handoff_codec.loads(row["summary"]["content"], strict=True)  # raises if not current
        assert decoded.recoveries == [] and decoded.candidates == ()
    elif decoded.format is Format.LEGACY:
        assert wrote in decoded.candidates and len(decoded.candidates) > 1
    else:
        assert decoded.format is wrote and decoded.candidates == ()


def test_spilled_content_keeps_line_breaks_and_lookalike_records() -> None:
    text = "\n".join(
        [
            *ENVELOPE,
            "1. user: a\r",
            "",
            "3. user: x",
            "2. assistant: Steps:",
            "1. one",
            "2. two",
            '3. function_call: {"call_id": "c"}',
            DEFAULT_END,
        ]
    )
    decoded = handoff_codec.decode(text)
    assert decoded.items == [
        {"role": "user", "content": "a\r\n\n3. user: x"},
        {"role": "assistant", "content": "Steps:\n1. one\n2. two"},
        {"type": "function_call", "call_id": "c"},
    ]
    assert decoded.format is handoff_codec.Format.LEGACY_0_6
