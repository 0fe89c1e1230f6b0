"""The lenient reader: list content, error messages, and memory on hostile input."""

from __future__ import annotations

import json
import re
import tracemalloc

import pytest

import handoff_codec
from handoff_codec import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, DecodeError, RecoveryKind


def summary(*lines: str) -> str:
    return "\n".join([DEFAULT_PREAMBLE, DEFAULT_START, *lines, DEFAULT_END])


IMAGE = [{"type": "input_text", "text": "what is this?"},
         {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=",
          "detail": "auto"}]


def test_an_image_part_becomes_an_image_again() -> None:
    decoded = handoff_codec.decode(summary(f"1. user: {json.dumps(IMAGE)}", "2. assistant: a cat"))
    assert decoded.items[0] == {"role": "user", "content": IMAGE}
    [recovery] = decoded.recoveries
    assert (recovery.line, recovery.kind, recovery.lost) == (3, RecoveryKind.LIST_CONTENT, False)
    assert "inferred" in recovery.message
    assert decoded.format is handoff_codec.Format.LEGACY_0_6


@pytest.mark.parametrize("content", [
    "[1, 2]",
    "[]",
    '[{"type": "input_text", "text": "a"}, {"type": "something_else"}]',
    '[{"text": "a"}]',
    '[{"type": "input_text", "text": "a"}, "b"]',
    '[{"type": "output_text", "text": "a", "annotations": []}]',
])
def test_other_arrays_stay_text(content: str) -> None:
    decoded = handoff_codec.decode(summary(f"1. user: {content}"))
    assert decoded.items == [{"role": "user", "content": content}]
    assert [(r.kind, r.lost) for r in decoded.recoveries] == [(RecoveryKind.ARRAY_AS_TEXT, True)]
    assert decoded.format is handoff_codec.Format.CURRENT


def test_content_parts_stay_text_when_a_later_writer_wrote_the_summary() -> None:
    # 0.17.1 and later wrote list content as a JSON record: an array after the
    # colon is the text it was.
    text = summary(f"1. user: {json.dumps(IMAGE)}", '2. {"role": "assistant", "content": "x"}')
    decoded = handoff_codec.decode(text)
    assert decoded.items[0] == {"role": "user", "content": json.dumps(IMAGE)}
    assert decoded.recoveries == []


@pytest.mark.parametrize("text", [
    summary(),
    summary("1. user: a").removesuffix("\n" + DEFAULT_END),
    f"{DEFAULT_PREAMBLE}\nx",
    "hello",
    summary("1. user: a") + "\nmore",
    summary("(no previous turns recorded)", "1. x"),
])
def test_errors_name_no_grammar_terminal(text: str) -> None:
    with pytest.raises(DecodeError) as caught:
        handoff_codec.decode(text)
    expected = caught.value.msg.partition("; expected ")[2]
    assert not re.search(r"\b[A-Z][A-Z_]{2,}\b", expected), caught.value.msg
    assert not any(re.fullmatch(r"[A-Z_$]+", e) for e in caught.value.expected)


MB = 1 << 20


# Lines after one record: each about 2 MB in all, with at most 80,000
# numbered lines (the default max_records is 100,000). Records numbered out
# of sequence are not here: the strict reader, which runs first, lexes all of
# them before it finds the numbering wrong.
FILLERS = {
    "empty lines": "\n" * (2 * MB),
    "lines of x": "x\n" * MB,
    "numbered lines out of sequence": "1. not a record, content\n" * 80_000,
}


@pytest.mark.parametrize("name", sorted(FILLERS))
def test_memory_stays_a_small_multiple_of_the_input(name: str) -> None:
    """Peak memory of a lenient read of about 2 MB: at most 10 times the input."""
    text = summary("1. user: a", FILLERS[name] + "2. assistant: b")
    tracemalloc.start()
    try:
        decoded = handoff_codec.decode(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert decoded.items[0]["role"] == "user"
    assert peak <= 10 * len(text), f"{peak / len(text):.0f} times the input"


def test_a_string_that_looks_like_list_content_round_trips() -> None:
    items = [{"role": "user", "content": json.dumps(IMAGE)}]
    assert handoff_codec.loads(handoff_codec.dumps(items)) == items
