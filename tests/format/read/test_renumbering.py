"""A renumbered summary reads as it was written, or the report says it may not.

Summaries written by ``handoff_codec.dumps`` and by the Agents SDK 0.24 writer
put each record on one line. Renumbering their body lines (one number moved
up, two neighbours swapped, a number repeated, every line numbered 1, or a
line deleted) must never change what the lenient reader gives without a
word: it gives the same items (less the deleted one), or notes a possible
loss (``lost=True``), or raises ``DecodeError``. A record out of sequence means
the summary was edited or a record is gone: ``renumbered`` is always lost, and
where the text cannot prove a writer that escapes line breaks, the line is
content of the record above (``ambiguous``), the reading as numbered its
candidate.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DecodeError, RecoveryKind
from tests.format.read.summaries import Engine, doubts
from tests.support.profiles import examples
from tests.support.sdk import sdk_summarize
from tests.support.strategies import items as any_items

NUMBER = re.compile(r"[0-9]+(?=\.)")
RENUMBERINGS = ["bump", "swap", "duplicate", "all_1", "delete"]
TOOL_CALL = {"arguments": "{}", "call_id": "c1", "name": "f", "type": "function_call"}
# Drawn as lists of two to six, not filtered from the transcripts: the draws
# are most of this test's time. Half of them are plain turns of short text,
# which both writers write as plain records: a summary of them alone shows no
# form of its writer, the case where the reader must say it cannot tell.
plain_turns = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant", "system", "developer"]),
    "content": st.text(alphabet="ab :.()12{}", min_size=1, max_size=12)})
transcripts = st.one_of(st.lists(any_items, min_size=2, max_size=6),
                        st.lists(plain_turns, min_size=2, max_size=6))


def one_line_each(items: list[dict[str, Any]]) -> bool:
    """The SDK writes each item as one line: no role or name of it holds a "\\n"
    (its content it writes as a JSON record when it holds one)."""
    return not any(isinstance(item.get(key), str) and "\n" in item[key]
                   for item in items for key in ("role", "name"))


def renumbered(body: list[str], how: str, at: int, by: int) -> tuple[list[str], int | None]:
    """``body`` renumbered ``how`` at line ``at``; and the index of a deleted line."""
    lines = list(body)

    def number(index: int, value: int) -> None:
        lines[index] = NUMBER.sub(str(value), lines[index], count=1)

    if how == "bump":
        number(at, at + 1 + by)
    elif how == "swap":
        at = min(at, len(lines) - 2)
        number(at, at + 2)
        number(at + 1, at + 1)
    elif how == "duplicate":
        at = max(at, 1)
        number(at, at)
    elif how == "all_1":
        for index in range(len(lines)):
            number(index, 1)
    else:
        del lines[at]
        return lines, at
    return lines, None


@examples(2000)
@given(writer=st.sampled_from(["dumps", "sdk"]), items=transcripts,
       how=st.sampled_from(RENUMBERINGS), data=st.data())
def test_a_renumbered_summary_reads_the_same_or_says_it_may_not(
    writer: str, items: list[dict[str, Any]], how: str, data: st.DataObject, engine: Engine
) -> None:
    if writer == "sdk" and not one_line_each(items):
        items = [item for item in items if one_line_each([item])]
        if len(items) < 2:
            return
    text = handoff_codec.dumps(items) if writer == "dumps" else sdk_summarize(items)["content"]
    lines = text.split("\n")
    head, body, tail = lines[:2], lines[2:-1], lines[-1:]
    assert len(body) == len(items)  # one line per item
    before = handoff_codec.decode(text, engine=engine).items
    at = data.draw(st.integers(0, len(body) - 1), label="at")
    by = data.draw(st.integers(0, 5), label="by")
    changed, deleted = renumbered(body, how, at, by)
    expected = before if deleted is None else before[:deleted] + before[deleted + 1:]
    if len(body) != len(before):  # a line the reader reads as no item: compare nothing
        return
    try:
        decoded = handoff_codec.decode("\n".join([*head, *changed, *tail]), engine=engine)
    except DecodeError:
        return
    if decoded.items != expected:
        assert any(r.lost for r in decoded.recoveries), (decoded.items, list(decoded.recoveries))


AS_NUMBERED = "every numbered line a record, as an edited summary would be"


def test_a_renumbered_json_record_without_evidence_is_content_and_reported(
    engine: Engine
) -> None:
    """`3.` changed to `7.` in what ``dumps`` wrote: records 1 and 2 show no writer that
    escapes line breaks, so the lines out of sequence are content of record 2, each
    reported; the reading as numbered, every record apart, is the candidate."""
    items = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
             {"role": "assistant", "content": "x\ny"}, {"role": "user", "content": "line1\nline2"}]
    lines = handoff_codec.dumps(items).split("\n")
    lines[4] = lines[4].replace("3.", "7.", 1)
    decoded = handoff_codec.decode("\n".join(lines), engine=engine)
    assert decoded.items == [items[0], {"role": "assistant",
                                        "content": "\n".join(["hi", *lines[4:6]])}]
    assert [(r.line, r.kind, r.lost) for r in decoded.recoveries] == [
        (4, RecoveryKind.CONTINUATION, False), (5, RecoveryKind.AMBIGUOUS, True),
        (6, RecoveryKind.AMBIGUOUS, True)]
    assert [(c.reading, c.items) for c in doubts(decoded)] == [(AS_NUMBERED, items)]


def test_a_renumbered_record_after_proof_of_an_escaping_writer_is_a_record(
    engine: Engine
) -> None:
    """The same edit when record 2 is a JSON record with an escaped line break (0.17.1 and
    later): every numbered line is a record, and the edit is reported."""
    items = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "h\ni"},
             TOOL_CALL, {"role": "user", "content": "bye"}]
    lines = handoff_codec.dumps(items).split("\n")
    lines[4] = lines[4].replace("3.", "7.", 1)
    decoded = handoff_codec.decode("\n".join(lines), engine=engine)
    assert decoded.items == items
    assert [(r.line, r.kind, r.lost) for r in decoded.recoveries] == [
        (5, RecoveryKind.RENUMBERED, True), (6, RecoveryKind.RENUMBERED, True)]
    assert decoded.candidates == ()


def test_swapped_numbers_keep_every_turn_or_say_so(engine: Engine) -> None:
    items = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
             {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"},
             {"role": "user", "content": "x\ny"}]
    lines = handoff_codec.dumps(items).split("\n")
    lines[3], lines[4] = lines[3].replace("2.", "3.", 1), lines[4].replace("3.", "2.", 1)
    decoded = handoff_codec.decode("\n".join(lines), engine=engine)
    assert not decoded.lossless
    assert [c.items for c in doubts(decoded)] == [items]


def test_an_sdk_empty_turn_before_a_gap_is_no_evidence(engine: Engine) -> None:
    """`N. role: ` shows 0.20 and later only when the next line is a record: before a line
    out of sequence it may be a raw writer's content that starts on the next line."""
    items = [{"role": "user", "content": "a"}, {"role": "assistant", "content": ""},
             {"role": "user", "content": "c"}]
    lines = sdk_summarize(items)["content"].split("\n")
    lines[4] = lines[4].replace("3.", "9.", 1)
    decoded = handoff_codec.decode("\n".join(lines), engine=engine)
    assert decoded.items == [items[0], {"role": "assistant", "content": "\n9. user: c"}]
    assert [r.kind for r in decoded.recoveries] == [RecoveryKind.CONTINUATION,
                                                    RecoveryKind.AMBIGUOUS]
    assert [c.items for c in doubts(decoded)] == [items]


def test_an_sdk_empty_turn_is_no_proof_of_its_writer(engine: Engine) -> None:
    """`N. role: ` and then a record: 0.20 and later write that for an empty turn, and 0.6
    to 0.17.0 for content that starts with a line break; so a gap further on is content of
    the record above, reported, with every record apart as the candidate."""
    items = [{"role": "assistant", "content": ""}, {"role": "user", "content": "a"},
             {"role": "user", "content": "c"}, {"role": "user", "content": "d"}]
    lines = sdk_summarize(items)["content"].split("\n")
    lines[5] = lines[5].replace("4.", "9.", 1)
    decoded = handoff_codec.decode("\n".join(lines), engine=engine)
    assert decoded.items == [*items[:2], {"role": "user", "content": "c\n9. user: d"}]
    assert not decoded.lossless
    readings = [c.items for c in decoded.candidates]
    assert items in readings
    # and the raw writer's reading: the content of the empty turn starts on the next line,
    # and the lines after it are not numbered as its records would be
    assert [{"role": "assistant", "content": "\n2. user: a\n3. user: c\n9. user: d"}] in readings
