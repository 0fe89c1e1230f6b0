"""Lossless: loads(dumps(L)) == L for any list of JSON-compatible items."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given

import handoff_codec
from tests.format.read.summaries import Engine
from tests.support.profiles import examples
from tests.support.strategies import transcripts


@examples(2000)
@given(items=transcripts)
def test_loads_dumps_round_trip(items: list[dict[str, Any]], engine: Engine) -> None:
    text = handoff_codec.dumps(items)
    assert handoff_codec.loads(text, engine=engine) == items
    assert handoff_codec.loads(text, strict=True, engine=engine) == items
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == items and list(decoded.recoveries) == []
    assert decoded.format is handoff_codec.Format.CURRENT


@examples(300)
@given(transcripts)
def test_output_is_deterministic_and_leaves_input_alone(items: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(items)
    text = handoff_codec.dumps(items)
    assert items == before
    assert handoff_codec.dumps(copy.deepcopy(items)) == text
    # Equal items in another key order give the same text.
    assert handoff_codec.dumps([dict(reversed(item.items())) for item in items]) == text


@examples(300)
@given(transcripts)
def test_every_line_break_is_escaped(items: list[dict[str, Any]]) -> None:
    text = handoff_codec.dumps(items)
    assert len(text.splitlines()) == text.count("\n") + 1 == max(len(items), 1) + 3


@pytest.mark.parametrize(
    ("item", "line"),
    [
        ({"role": "user", "content": "hello"}, "1. user: hello"),
        ({"role": "assistant", "name": "bot", "content": ""}, "1. assistant (bot): "),
        ({"role": "user", "content": None}, '1. {"content": null, "role": "user"}'),
        ({"role": "user", "content": " hi"}, '1. {"content": " hi", "role": "user"}'),
        (
            {"role": "user", "name": "team:a", "content": "q"},
            '1. {"content": "q", "name": "team:a", "role": "user"}',
        ),
        ({"role": "tool", "content": "x"}, '1. {"content": "x", "role": "tool"}'),
        (
            {"role": "assistant (bot)", "content": ""},
            '1. {"content": "", "role": "assistant (bot)"}',
        ),
        (
            {"role": "user", "content": "x", "id": "m1"},
            '1. {"content": "x", "id": "m1", "role": "user"}',
        ),
        ({"role": "user", "content": "a\u2028b"}, '1. {"content": "a\\u2028b", "role": "user"}'),
        (
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            '1. {"arguments": "{}", "call_id": "c1", "name": "f", "type": "function_call"}',
        ),
    ],
)
def test_record_forms(item: dict[str, Any], line: str, engine: Engine) -> None:
    """Plain records only where every reader reads them back; JSON otherwise."""
    text = handoff_codec.dumps([item])
    assert text.split("\n")[2] == line
    assert handoff_codec.loads(text, engine=engine) == [item]


def test_empty_transcript(engine: Engine) -> None:
    text = handoff_codec.dumps([])
    assert text.split("\n")[2] == "(no previous turns recorded)"
    assert handoff_codec.loads(text, engine=engine) == []


def test_summarize_is_an_assistant_message() -> None:
    items = [{"role": "user", "content": "hi"}]
    assert handoff_codec.format.summarize(items) == {
        "role": "assistant",
        "content": handoff_codec.dumps(items),
    }


def test_items_that_are_not_json_raise_encode_error() -> None:
    with pytest.raises(handoff_codec.EncodeError, match="item 1"):
        handoff_codec.dumps(
            [{"role": "user", "content": "ok"}, {"role": "user", "content": object()}]
        )
    with pytest.raises(handoff_codec.EncodeError, match="item 0"):
        handoff_codec.dumps(["not a mapping"])  # type: ignore[list-item]


def test_a_circular_item_raises_encode_error_and_leaves_the_next_call_alone(
    engine: Engine
) -> None:
    loop: list[Any] = []
    loop.append(loop)
    bad = {"type": "x", "ok": {"k": 1}, "v": loop}
    with pytest.raises(handoff_codec.EncodeError,
                       match="item 1 is not JSON-compatible: Circular reference"):
        handoff_codec.dumps([{"role": "user", "content": "ok"}, bad])
    # Once the cycle is gone the same object encodes: no mark of the failed call is left.
    del bad["v"]
    assert handoff_codec.loads(handoff_codec.dumps([bad]), engine=engine) == [bad]
    # The same object twice in one summary is not a cycle either.
    shared = {"type": "x", "v": 1}
    items = [shared, shared, {"type": "y", "a": [shared], "b": [shared]}]
    assert handoff_codec.loads(handoff_codec.dumps(items), engine=engine) == items


@pytest.mark.parametrize("role", ["user", "assistant", "system", "developer"])
@pytest.mark.parametrize("content", ["hi", "", " a: b ", "[not a list", "x\u2028y"])
def test_the_usual_handoff_of_one_message(role: str, content: str, engine: Engine) -> None:
    items = [{"role": role, "content": content}]
    text = handoff_codec.dumps(items)
    assert handoff_codec.loads(text, engine=engine) == items
    assert handoff_codec.loads(text, strict=True, engine=engine) == items
    assert handoff_codec.decode(text, engine=engine).items == items


@pytest.mark.parametrize("item", [
    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    {"role": "assistant", "name": "bot", "content": None},
    {"role": "user", "content": "two\nlines"},
])
def test_the_usual_handoff_of_one_json_record(item: dict[str, Any], engine: Engine) -> None:
    text = handoff_codec.dumps([item])
    assert handoff_codec.loads(text, engine=engine) == [item]
    assert handoff_codec.loads(text, strict=True, engine=engine) == [item]
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [item] and list(decoded.recoveries) == []
    assert decoded.format is handoff_codec.Format.CURRENT


@pytest.mark.parametrize("content", [")", "b)", "b) ", "x (y)", "a): b"])
def test_a_named_turn_whose_line_has_two_readings_is_written_as_json(content: str) -> None:
    # `N. user (bot): b)` is also an empty turn named "bot): b" (0.6 to 0.19 wrote it so)
    items = [{"role": "user", "content": None}, {"role": "user", "name": "bot", "content": content}]
    for engine in ("fast", "lark"):
        decoded = handoff_codec.decode(handoff_codec.dumps(items), engine=engine)
        assert decoded.items == items and decoded.lossless
