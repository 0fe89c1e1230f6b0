"""The content rule: text stays text (docs/spec.md, "Content").

openai-agents 0.6 to 0.17.0 wrote list content as a JSON array after the
colon: the same bytes as a string holding that array. Content that is a JSON
array of content parts (objects whose ``type`` is an input or output content
part type) is kept as the text; when a writer the evidence leaves wrote lists
that way, the read is ``ambiguous`` (lost) and ``Decoded.candidates`` holds
the list reading. Any other array can only be text: no recovery at all.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Format
from tests.format.read.summaries import Engine, doubts, summary

LISTS = "JSON arrays of content parts as list content, as openai-agents 0.6 to 0.17.0 wrote it"
IMAGE = [{"type": "input_text", "text": "what is this?"},
         {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=",
          "detail": "auto"}]
# A part of each content part type (grammar/legacy.lark's CONTENT_PART_TYPE).
PARTS = {
    "input_text": {"type": "input_text", "text": "hi"},
    "input_image": {"type": "input_image", "image_url": "https://example.com/a.png"},
    "input_file": {"type": "input_file", "file_id": "f1"},
    "input_audio": {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
    "output_text": {"type": "output_text", "text": "Hello", "annotations": []},
    "refusal": {"type": "refusal", "refusal": "no"},
}


def notes(decoded: handoff_codec.Decoded) -> list[tuple[int, str, bool]]:
    return [(r.line, r.kind.value, r.lost) for r in decoded.recoveries]


def test_an_image_part_stays_text_and_the_list_is_the_candidate(engine: Engine) -> None:
    """Issue 31: text that looks like list content with an image part stays a string; with
    no evidence that rules 0.6 to 0.17.0 out, the read is ambiguous."""
    text = summary(f"1. user: {json.dumps(IMAGE)}", "2. assistant: a cat")
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == [{"role": "user", "content": json.dumps(IMAGE)},
                             {"role": "assistant", "content": "a cat"}]
    assert notes(decoded) == [(3, "ambiguous", True)]
    assert "JSON array of content parts" in decoded.recoveries[0].message
    [candidate] = doubts(decoded)
    assert candidate.reading == LISTS
    assert candidate.items == [{"role": "user", "content": IMAGE},
                               {"role": "assistant", "content": "a cat"}]
    assert decoded.format is Format.LEGACY and len(decoded.writers) == 4
    assert handoff_codec.loads(text, engine=engine) == decoded.items


@pytest.mark.parametrize("kind", sorted(PARTS))
@pytest.mark.parametrize("head", ["user: ", "user:", "assistant (bot): ", "tool: "])
def test_each_content_part_type_is_ambiguous(kind: str, head: str, engine: Engine) -> None:
    content = json.dumps([PARTS[kind]])
    decoded = handoff_codec.decode(summary(f"1. {head}{content}"), engine=engine)
    [item] = decoded.items
    assert item["content"] == content
    assert notes(decoded) == [(3, "ambiguous", True)]
    [candidate] = doubts(decoded)
    assert candidate.items == [{**item, "content": [PARTS[kind]]}]


@pytest.mark.parametrize("content", [
    "[1, 2]",
    '[{"a": 1}]',
    '[{"type": "input_text", "text": "a"}, {"type": "something_else"}]',
    '[{"text": "a"}]',
    '[{"type": "input_text", "text": "a"}, "b"]',
    '[{"type": "message", "role": "user", "content": "x"}]',
    "[not json",
    " " + json.dumps(IMAGE),  # not what json.dumps after ": " writes
])
def test_other_arrays_can_only_be_text(content: str, engine: Engine) -> None:
    decoded = handoff_codec.decode(summary(f"1. user: {content}"), engine=engine)
    assert decoded.items == [{"role": "user", "content": content}]
    assert notes(decoded) == [] and decoded.candidates == ()
    assert decoded.format is Format.CURRENT and decoded.writers == ()


def test_an_array_of_numbers_has_no_recovery(engine: Engine) -> None:
    """Issue 31: `1. assistant: [1, 2]` is text, with nothing to report."""
    decoded = handoff_codec.decode(summary("1. assistant: [1, 2]"), engine=engine)
    assert decoded.items == [{"role": "assistant", "content": "[1, 2]"}]
    assert decoded.lossless and decoded.complete and list(decoded.recoveries) == []


@pytest.mark.parametrize("other", [
    '2. {"role": "assistant", "content": "x"}',  # a JSON record: 0.17.1 and later
    "2. assistant: ",  # an empty turn with its separator: 0.20 and later
])
def test_evidence_that_rules_out_lists_after_the_colon_leaves_no_doubt(
    other: str, engine: Engine
) -> None:
    decoded = handoff_codec.decode(summary(f"1. user: {json.dumps(IMAGE)}", other),
                                   engine=engine)
    assert decoded.items[0] == {"role": "user", "content": json.dumps(IMAGE)}
    assert notes(decoded) == [] and decoded.candidates == ()


def test_an_empty_array_may_have_been_an_empty_list(engine: Engine) -> None:
    """0.6 to 0.17.0 wrote an empty list as `[]` after the colon: the text is kept, the
    empty list is the candidate."""
    decoded = handoff_codec.decode(summary("1. user: []"), engine=engine)
    assert decoded.items == [{"role": "user", "content": "[]"}]
    assert notes(decoded) == [(3, "ambiguous", True)]
    [candidate] = doubts(decoded)
    assert candidate.items == [{"role": "user", "content": []}]


def test_evidence_of_0_6_keeps_the_text_and_the_doubt(engine: Engine) -> None:
    # A typed record shows 0.6 to 0.17.0, which wrote lists after the colon.
    decoded = handoff_codec.decode(
        summary(f"1. user: {json.dumps(IMAGE)}", '2. reasoning: {"summary": []}'),
        engine=engine)
    assert decoded.items[0]["content"] == json.dumps(IMAGE)
    assert notes(decoded) == [(3, "ambiguous", True), (4, "typed_record", False)]
    assert decoded.format is Format.LEGACY_0_6
    [candidate] = doubts(decoded)
    assert candidate.items[0]["content"] == IMAGE and candidate.items[1]["type"] == "reasoning"


def test_every_array_of_parts_is_noted_and_listed_in_one_candidate(engine: Engine) -> None:
    first, second = json.dumps([PARTS["input_text"]]), json.dumps([PARTS["output_text"]])
    decoded = handoff_codec.decode(
        summary(f"1. user: {first}", "2. assistant: [1]", f"3. assistant: {second}"),
        engine=engine)
    assert [item["content"] for item in decoded.items] == [first, "[1]", second]
    assert notes(decoded) == [(3, "ambiguous", True), (5, "ambiguous", True)]
    [candidate] = doubts(decoded)
    assert [item["content"] for item in candidate.items] == [
        [PARTS["input_text"]], "[1]", [PARTS["output_text"]]]


def test_a_string_that_looks_like_list_content_round_trips(engine: Engine) -> None:
    items = [{"role": "user", "content": json.dumps(IMAGE)}]
    assert handoff_codec.loads(handoff_codec.dumps(items), engine=engine) == items
    assert handoff_codec.decode(handoff_codec.dumps(items), engine=engine).lossless




@pytest.mark.parametrize("kind", [[],
    {}, ["input_text"], 1, None])
@pytest.mark.parametrize("spilled", [False, True])
def test_a_part_whose_type_is_not_a_string_is_no_content_part(
    kind: Any, spilled: bool, engine: Engine
) -> None:
    parts = [{"type": kind}, {"type": "input_text", "text": "hi"}]
    lines = [f"1. user: {json.dumps(parts)}", "2. assistant: a"] + (["b"] if spilled else [])
    text = summary(*lines)
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items[0]["content"] == json.dumps(parts)
    assert handoff_codec.loads(text, engine=engine) == decoded.items
    assert [kind for _, kind, _ in notes(decoded)] == (["continuation"] if spilled else [])
