"""The lenient reader: list content, error messages, and memory on hostile input."""

from __future__ import annotations

import json
import pickle
import re
import tracemalloc
from typing import Any

import pytest

import handoff_codec
from handoff_codec import DecodeError, RecoveryKind
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START


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


# Bodies of many short records, each with a recovery or two: the items alone
# then take more than 10 times the input (a dict is 184 bytes), so what is
# bounded is the rest, the recoveries and what the read holds on the way: 2 to
# 4 times the input today, 40 and more with a pydantic model per recovery.
DENSE = {
    "records all numbered 1": "1. user: a\n" * 30_000,
    "bare roles": "".join(f"{n}. assistant\n" for n in range(1, 30_001)),
    "numbered lines that are not records": "".join(f"{n}. x\n" for n in range(1, 30_001)),
    "arrays as text, all numbered 1": "1. user: [1]\n" * 30_000,
}


@pytest.mark.parametrize("name", sorted(DENSE))
def test_memory_beyond_the_items_stays_a_small_multiple_of_the_input(name: str) -> None:
    text = summary(DENSE[name].removesuffix("\n"))
    tracemalloc.start()
    try:
        decoded = handoff_codec.decode(text)
        peak = tracemalloc.get_traced_memory()[1]
        assert len(decoded.recoveries) >= 29_999
        items = decoded.items
        del decoded
        held_by_items = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(items) in (0, 30_000)
    assert peak - held_by_items <= 5 * len(text), f"{(peak - held_by_items) / len(text):.1f}"


def test_recoveries_read_as_a_list_of_recovery() -> None:
    text = "\n".join(["For context, here is the conversation so far:", DEFAULT_START,
                      "1. user: [1]", "3. assistant: b", "3. x y: z", DEFAULT_END])
    decoded = handoff_codec.decode(text)
    expected = [
        handoff_codec.Recovery(line=1, kind=RecoveryKind.LEGACY_PREAMBLE,
                               message="the short legacy preamble"),
        handoff_codec.Recovery(line=3, kind=RecoveryKind.LIST_CONTENT, message=(
            "list content written as a JSON array; read back as a list")),
        handoff_codec.Recovery(line=4, kind=RecoveryKind.AMBIGUOUS, lost=True, message=(
            "a record numbered 3 where 2 was expected; read as a record of its own; nothing "
            "in the summary shows whether its writer escaped line breaks (openai-agents "
            "0.17.1 and later) or wrote content raw (0.6 to 0.17.0), so it may be a line of "
            "the content above")),
        handoff_codec.Recovery(line=4, kind=RecoveryKind.CONTINUATION, message=(
            "the record continues on the next 1 line(s); joined with '\\n'")),
        handoff_codec.Recovery(line=5, kind=RecoveryKind.AMBIGUOUS, lost=True, message=(
            "a line shaped like a record, out of sequence, read as content of the record "
            "above: '3. x y: z'; nothing in the summary shows whether its writer escaped line "
            "breaks (openai-agents 0.17.1 and later) or wrote content raw (0.6 to 0.17.0), so "
            "it may be a record of its own")),
    ]
    recoveries = decoded.recoveries
    assert list(recoveries) == expected and recoveries == expected and expected == recoveries
    assert (len(recoveries), recoveries[-1], recoveries[1:3]) == (5, expected[4], expected[1:3])
    assert recoveries != expected[:3] and recoveries != "text"
    assert decoded.model_dump(mode="json")["recoveries"] == [
        r.model_dump(mode="json") for r in expected]
    assert pickle.loads(pickle.dumps(decoded)) == decoded
    assert handoff_codec.Decoded.model_validate(decoded.model_dump()) == decoded
    assert (decoded.lossless, decoded.complete) == (False, True)


def test_content_part_types_are_those_of_openais_input_message_types() -> None:
    """The constant the lenient reader uses equals what openai's own types allow."""
    from typing import Literal, get_args, get_origin

    from openai.types.responses import EasyInputMessage, ResponseInputAudio
    from pydantic import BaseModel

    from handoff_codec.format.content import CONTENT_PART_TYPES

    types: set[str] = set()
    pending: list[Any] = [EasyInputMessage.model_fields["content"].annotation,
                          ResponseInputAudio]
    while pending:
        kind = pending.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            field = kind.model_fields["type"].annotation
            if get_origin(field) is Literal:
                types.update(get_args(field))
        elif get_origin(kind) is not None:  # Union, Annotated, List
            pending.extend(get_args(kind))
    assert types == CONTENT_PART_TYPES


@pytest.mark.parametrize("kind", [[], {}, ["input_text"], 1, None])
@pytest.mark.parametrize("spilled", [False, True])
def test_list_content_whose_part_type_is_not_a_string_reads_without_error(
    kind: Any, spilled: bool
) -> None:
    # A part whose "type" is a list or an object (unhashable) is no content part:
    # without a sign of the writer the array stays text; with the old writer's
    # sign (a record spilled over lines) it is list content all the same.
    parts = [{"type": kind}, {"type": "input_text", "text": "hi"}]
    lines = [f"1. user: {json.dumps(parts)}", "2. assistant: a"] + (["b"] if spilled else [])
    text = summary(*lines)
    decoded = handoff_codec.decode(text)
    assert decoded.items[0]["content"] == (parts if spilled else json.dumps(parts))
    assert handoff_codec.loads(text) == decoded.items
    kinds = [recovery.kind for recovery in decoded.recoveries]
    assert kinds == ([RecoveryKind.LIST_CONTENT, RecoveryKind.CONTINUATION] if spilled
                     else [RecoveryKind.ARRAY_AS_TEXT])
