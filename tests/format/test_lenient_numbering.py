"""The lenient reader's numbering rule (grammar/legacy.lark), both sides of it.

Records numbered out of sequence start new records (a `renumbered` recovery)
when the summary shows a sign of a writer that escapes line breaks
(openai-agents 0.17.1 and later); with a sign of the 0.6 to 0.17.0 writer,
whose raw multi-line content could hold lines shaped like records, they are
content; with no sign, or both, the reading is noted `ambiguous`, a possible
loss. The real legacy fixtures read as they did before the rule existed
(``tests/fixtures/legacy_decoded.jsonl`` holds what the reader gave for each
of them before), but for the changes named in ``_as_read_now``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from tests.support.legacy_fixtures import ROWS, release, row_id
from tests.support.profiles import examples
from tests.support.strategies import transcripts

BEFORE_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_decoded.jsonl"
BEFORE = {row["id"]: row for row in map(json.loads, BEFORE_FILE.read_text().splitlines())}


def summary(*lines: str) -> str:
    return "\n".join([DEFAULT_PREAMBLE, DEFAULT_START, *lines, DEFAULT_END])


def kinds(decoded: handoff_codec.Decoded) -> list[tuple[int, RecoveryKind]]:
    return [(r.line, r.kind) for r in decoded.recoveries]


REDACTED = summary("1. user: my card is 4111 1111 1111 1111", "3. user: refund please",
                   "4. assistant: done")
THREE_TURNS = [
    {"role": "user", "content": "my card is 4111 1111 1111 1111"},
    {"role": "user", "content": "refund please"},
    {"role": "assistant", "content": "done"},
]


TOOL_CALL = '{"arguments": "{}", "call_id": "c1", "name": "f", "type": "function_call"}'
# REDACTED with a JSON record: a sign of a writer that escapes line breaks.
REDACTED_WITH_JSON = summary("1. user: my card is 4111 1111 1111 1111", f"3. {TOOL_CALL}",
                             "4. assistant: done")


def test_a_redacted_record_leaves_the_others_apart() -> None:
    decoded = handoff_codec.decode(REDACTED_WITH_JSON)
    assert decoded.items == [THREE_TURNS[0], json.loads(TOOL_CALL), THREE_TURNS[2]]
    assert kinds(decoded) == [(4, RecoveryKind.RENUMBERED)]
    assert decoded.lossless and decoded.complete
    assert decoded.format is handoff_codec.Format.LEGACY
    assert decoded.candidates == (handoff_codec.Format.LEGACY_0_17_1,
                                  handoff_codec.Format.CURRENT)


def test_a_redacted_record_without_evidence_is_ambiguous() -> None:
    """Without a sign of the writer, `3. user: ...` may be content the 0.6 to
    0.17.0 writer wrote raw: the split is kept, noted as a possible loss."""
    decoded = handoff_codec.decode(REDACTED)
    assert decoded.items == THREE_TURNS
    assert handoff_codec.loads(REDACTED) == THREE_TURNS
    assert kinds(decoded) == [(4, RecoveryKind.AMBIGUOUS)]
    assert [r.lost for r in decoded.recoveries] == [True]
    assert not decoded.lossless and decoded.complete
    assert decoded.format is handoff_codec.Format.LEGACY
    assert decoded.candidates == (handoff_codec.Format.LEGACY_0_6,
                                  handoff_codec.Format.LEGACY_0_17_1, handoff_codec.Format.CURRENT)


def test_flatten_gives_three_turns_for_the_redacted_summary() -> None:
    message = {"role": "assistant", "content": REDACTED_WITH_JSON}
    assert len(handoff_codec.flatten([message])) == 3


@pytest.mark.parametrize(("second", "kind"), [("2. user: c", RecoveryKind.AMBIGUOUS),
                                              (f"2. {TOOL_CALL}", RecoveryKind.RENUMBERED)])
def test_duplicate_numbers_start_records(second: str, kind: RecoveryKind) -> None:
    decoded = handoff_codec.decode(summary("1. user: a", "2. assistant: b", second,
                                           "3. assistant: d"))
    assert len(decoded.items) == 4
    assert decoded.items[1] == {"role": "assistant", "content": "b"}
    assert kinds(decoded) == [(5, kind)]


def test_a_redacted_first_record() -> None:
    decoded = handoff_codec.decode(summary("2. assistant: b", "3. user: c"))
    assert decoded.items == [{"role": "assistant", "content": "b"},
                             {"role": "user", "content": "c"}]
    assert kinds(decoded) == [(3, RecoveryKind.RENUMBERED)]


def test_a_numbered_line_not_shaped_like_a_record_still_continues() -> None:
    decoded = handoff_codec.decode(summary("1. user: Steps:", "3. do this", "2. assistant: ok"))
    assert decoded.items[0] == {"role": "user", "content": "Steps:\n3. do this"}
    assert [r.kind for r in decoded.recoveries] == [RecoveryKind.CONTINUATION]


@pytest.mark.parametrize(
    ("sign", "lines", "ambiguous"),
    [
        # The raw writer's own sign: the lookalike line is content, no doubt.
        ("a line that is not numbered", ["1. user: see:", "", "3. user: x", "2. assistant: ok"],
         False),
        # No sign of either writer: the same reading, noted as ambiguous.
        ("a typed record", ["1. user: see:", "3. user: x", '2. function_call: {"a": 1}'], True),
        ("a record numbered lower than one above it",
         ["1. user: see:", "3. user: x", "2. assistant: ok"], True),
    ],
)
def test_signs_of_the_old_writer_keep_lookalike_lines_in_content(
    sign: str, lines: list[str], ambiguous: bool
) -> None:
    decoded = handoff_codec.decode(summary(*lines))
    assert len(decoded.items) == 2, sign
    assert "3. user: x" in decoded.items[0]["content"]
    assert RecoveryKind.RENUMBERED not in {r.kind for r in decoded.recoveries}
    line = 3 + lines.index("3. user: x")
    assert ((line, RecoveryKind.AMBIGUOUS) in kinds(decoded)) is ambiguous
    assert decoded.lossless is not ambiguous
    assert decoded.format is handoff_codec.Format.LEGACY_0_6


@pytest.mark.parametrize(
    ("lines", "doubtful"),
    [
        # A number used twice after raw content: either "2." may start the record.
        (["1. user: first line", "second line", "2. system: do what I say", "2. assistant: ok"],
         [5]),
        (["1. user: a", "more", "2. user: b", "3. assistant: c", "3. system: d"], [6]),
        # No number used twice: the lookalike line cannot take a record's place.
        (["1. user: a", "more", "3. user: x", "2. assistant: ok"], []),
        (["1. user: a", "more", "2. assistant: ok", "1. system: x"], []),
    ],
)
def test_a_raw_writers_repeated_number_is_ambiguous(lines: list[str], doubtful: list[int]) -> None:
    """With the raw writer's sign, the run starts records; a content line with a run
    line's number, between that line's neighbours, could have been the record."""
    decoded = handoff_codec.decode(summary(*lines))
    found = [line for line, kind in kinds(decoded) if kind is RecoveryKind.AMBIGUOUS]
    assert found == doubtful
    assert decoded.lossless is (not doubtful)
    assert RecoveryKind.RENUMBERED not in {r.kind for r in decoded.recoveries}


def test_a_sign_of_the_escaping_writer_splits_lookalike_lines() -> None:
    """With a JSON record, every numbered line is a record, whatever its number."""
    decoded = handoff_codec.decode(summary("1. user: see:", "3. user: x", "2. assistant: ok",
                                           f"4. {TOOL_CALL}"))
    assert [item.get("content") for item in decoded.items] == ["see:", "x", "ok", None]
    assert kinds(decoded) == [(4, RecoveryKind.RENUMBERED), (5, RecoveryKind.RENUMBERED),
                              (6, RecoveryKind.RENUMBERED)]
    assert decoded.lossless


def test_signs_of_both_writers_are_ambiguous() -> None:
    """A JSON record and a line that is not numbered: the text cannot tell."""
    decoded = handoff_codec.decode(summary("1. user: see:", "more", "3. user: x",
                                           f"2. {TOOL_CALL}"))
    assert len(decoded.items) == 2
    assert (5, RecoveryKind.AMBIGUOUS) in kinds(decoded)
    assert not decoded.lossless


def test_renumbered_kind_prints_its_value() -> None:
    assert str(RecoveryKind.RENUMBERED) == "renumbered"
    assert str(RecoveryKind.AMBIGUOUS) == "ambiguous"
    assert str(handoff_codec.Format.LEGACY_0_17_1) == "legacy-0.17.1-0.19"
    assert str(handoff_codec.Format.LEGACY) == "legacy"


def _reading(row: dict[str, Any]) -> dict[str, Any]:
    decoded = handoff_codec.decode(row["summary"]["content"])
    return {"id": row_id(row), "format": decoded.format.value,
            "candidates": [form.value for form in decoded.candidates], "items": decoded.items,
            "recoveries": [[r.line, r.kind.value, r.lost] for r in decoded.recoveries]}


# The one line of the 0.6 to 0.17.0 summaries of `record_lookalike_line`
# (user content "see:\n3. user: x", raw) that the text cannot tell from a
# renumbered record: read as content, as before, now noted `ambiguous`.
AMBIGUOUS_NOW = {f"{version}-single-record_lookalike_line": [4, "ambiguous", True]
                 for version in ("0.6.0", "0.10.5", "0.14.8", "0.17.0")}
JSON_LINE = re.compile(r"^[0-9]+\. \{", re.MULTILINE)


def _as_read_now(before: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """``before`` with the changes since: list content (``_list_content_read_back``),
    format labels by evidence, and the ambiguous lookalike lines.

    Bare roles alone fit both 0.6 to 0.17.0 and 0.17.1 to 0.19: such a summary,
    once labelled ``legacy-0.17.1-0.19``, is now ``legacy`` with both candidates;
    with a JSON record too it is still ``legacy-0.17.1-0.19``.
    """
    after = _list_content_read_back(before, row)
    after["candidates"] = []
    if after["format"] == "legacy-0.17.1-0.19" \
            and not JSON_LINE.search(row["summary"]["content"]):
        after["format"] = "legacy"
        after["candidates"] = ["legacy-0.6-0.17.0", "legacy-0.17.1-0.19"]
    if row_id(row) in AMBIGUOUS_NOW:
        after["recoveries"].append(AMBIGUOUS_NOW[row_id(row)])
    return after


INPUT_PARTS = {"input_text", "input_image", "input_file", "input_audio"}


def _list_content_read_back(before: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """``before``, with each JSON array of input content parts read back as the list it was.

    An array of other parts stays text, now reported as ``array_as_text``.
    """
    after = json.loads(json.dumps(before))
    arrays = [(item, original) for item, original in zip(after["items"], row["transcript"],
                                                         strict=False)
              if isinstance(original.get("content"), list)
              and item.get("content") == json.dumps(original["content"])]
    notes = [r for r in after["recoveries"] if r[1] == "list_content" and r[2]]
    for (item, original), recovery in zip(arrays, notes, strict=True):
        if {part["type"] for part in original["content"]} <= INPUT_PARTS:
            item["content"] = original["content"]
            after["format"] = "legacy-0.6-0.17.0"
            recovery[2] = False
        else:
            recovery[1] = "array_as_text"
    return after


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_every_fixture_reads_as_before(row: dict[str, Any]) -> None:
    """The same items, but list content, which reads as the list it was rather than
    its JSON text; the other changes are the labels and notes of ``_as_read_now``."""
    assert _reading(row) == _as_read_now(BEFORE[row_id(row)], row)


def test_list_content_is_read_back_in_every_version_that_wrote_it_as_text() -> None:
    changed = {row_id(row) for row in ROWS
               if _list_content_read_back(BEFORE[row_id(row)], row) != BEFORE[row_id(row)]}
    assert changed == {f"{version}-single-{case}" for version in ("0.6.0", "0.10.5", "0.14.8",
                                                                  "0.17.0")
                       for case in ("list_content", "responses_api_message_shape")}


@pytest.mark.parametrize("row", [r for r in ROWS if release(r["version"]) >= (0, 17, 1)],
                         ids=row_id)
def test_a_redacted_fixture_loses_only_the_redacted_turn(row: dict[str, Any]) -> None:
    """Delete record 2 from each summary of 0.17.1 and later: the other records stay apart."""
    lines = row["summary"]["content"].split("\n")
    if len(lines) < 6:
        pytest.skip("fewer than three records")
    redacted = "\n".join([*lines[:3], *lines[4:]])
    before = handoff_codec.decode(row["summary"]["content"])
    after = handoff_codec.decode(redacted)
    assert after.items == [before.items[0], *before.items[2:]]
    # A JSON record or an empty `role: ` shows the writer; else the split is ambiguous.
    escaped = any(line.startswith("{", line.find(". ") + 2) or line.endswith(": ")
                  for line in [lines[2], *lines[4:-1]])
    kind = RecoveryKind.RENUMBERED if escaped else RecoveryKind.AMBIGUOUS
    assert (4, kind) in kinds(after)


@examples(200)
@given(transcripts.filter(lambda t: len(t) >= 2), st.data())
def test_removing_any_record_of_a_current_summary_removes_only_its_turn(
    transcript: list[dict[str, Any]], data: st.DataObject
) -> None:
    """The current writer's records stay apart, whichever one is deleted."""
    text = handoff_codec.dumps(transcript)
    before = handoff_codec.decode(text)
    gone = data.draw(st.integers(0, len(transcript) - 1))
    lines = text.split("\n")
    after = handoff_codec.decode("\n".join([*lines[:2 + gone], *lines[3 + gone:]]))
    assert after.items == before.items[:gone] + before.items[gone + 1:]
    renumbered = [r for r in after.recoveries
                  if r.kind in (RecoveryKind.RENUMBERED, RecoveryKind.AMBIGUOUS)]
    assert len(renumbered) == (gone < len(transcript) - 1)


@pytest.mark.parametrize("number", ["0", "00", "1234567890123456789"])
def test_a_line_numbered_0_or_past_18_digits_is_in_no_run(number: str) -> None:
    # Such a line is never in sequence (the reader keeps its number as 0): it
    # neither starts the run of rule 1 nor, unshaped, a record of rule 2, and
    # continues the record above it (rule 3).
    decoded = handoff_codec.decode(summary("2. assistant: b", f"{number}. x"))
    assert decoded.items == [{"role": "assistant", "content": f"b\n{number}. x"}]
    assert kinds(decoded) == [(3, RecoveryKind.RENUMBERED), (3, RecoveryKind.CONTINUATION)]
