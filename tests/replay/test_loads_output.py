"""``to_provider`` takes whatever ``loads`` returns: null turns, names, wrapped base64.

``None`` and ``""`` are the same empty turn (the Agents SDK writes both as
``N. role: ``), so every target reads them alike and notes it. A ``name`` is
kept where the target's documented message shape has one, and otherwise
dropped or folded into the text, with a note each time.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam
from pydantic import TypeAdapter

import handoff_codec
from handoff_codec.replay import PROVIDERS, ReplayError, restore_empty, to_provider
from tests.support.profiles import examples
from tests.support.turns import turnless

NATIVE = ("anthropic", "gemini", "bedrock")
SCHEMAS = {"anthropic": "anthropic.types.MessageParam",
           "gemini": "google.genai.types.Content",
           "bedrock": "types_boto3_bedrock_runtime.type_defs.MessageTypeDef",
           "chat_completions": "openai.types.chat.ChatCompletionMessageParam",
           "mistral": "openai.types.chat.ChatCompletionMessageParam"}


def codes(items: list[Any], target: str, **options: Any) -> list[tuple[int | None, str]]:
    return [(note.index, note.code) for note in to_provider(items, target, **options).notes]


# ---------------------------------------------------------------- None and ""
@pytest.mark.parametrize("target", PROVIDERS)
@pytest.mark.parametrize("role", ["user", "assistant", "system", "developer"])
def test_null_content_is_the_empty_turn_that_empty_text_is(target: str, role: str) -> None:
    empty = [{"role": "user", "content": "hi"}, {"role": role, "content": ""},
             {"role": "user", "content": "and?"}]
    null = [empty[0], {"role": role, "content": None}, empty[2]]
    missing = [empty[0], {"role": role}, empty[2]]
    expected = to_provider(empty, target)
    for items in (null, missing):
        conversion = to_provider(items, target)
        assert conversion.request == expected.request
        assert conversion.checked_with == SCHEMAS[target]
        assert [note for note in conversion.notes if note.code != "null-as-empty"] == \
            expected.notes
        assert [(n.index, n.severity) for n in conversion.notes
                if n.code == "null-as-empty"] == [(1, "info")]


@pytest.mark.parametrize("target", PROVIDERS)
def test_a_null_tool_output_and_a_null_output_message_are_empty_too(target: str) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    empty = [{"role": "user", "content": "go"}, call,
             {"type": "function_call_output", "call_id": "c1", "output": ""},
             {"type": "message", "role": "assistant", "id": "m", "content": []},
             {"role": "user", "content": "ok"}]
    null = [*empty[:2], {**empty[2], "output": None}, {**empty[3], "content": None}, empty[4]]
    assert to_provider(null, target).request == to_provider(empty, target).request
    assert [(i, c) for i, c in codes(null, target) if c == "null-as-empty"] == [
        (2, "null-as-empty"), (3, "null-as-empty")]


# ---------------------------------------------------------------- names
SUMMARY = handoff_codec.dumps([
    {"role": "user", "content": "hello"},
    {"role": "assistant", "name": "bot", "content": None},
    {"role": "user", "content": "still there?"},
    {"role": "assistant", "name": "Triage Agent", "content": "yes"},
])


@pytest.mark.parametrize("target", PROVIDERS)
def test_the_readme_pipeline_takes_a_summary_with_null_and_named_turns(target: str) -> None:
    items = restore_empty(handoff_codec.loads(SUMMARY))
    assert items[1] == {"role": "assistant", "name": "bot", "content": None}
    conversion = to_provider(items, target)
    assert conversion.checked_with == SCHEMAS[target]
    notes = [(n.index, n.code) for n in conversion.notes]
    assert (1, "null-as-empty") in notes
    if target == "chat_completions":
        # Chat Completions messages have a name; OpenAI takes ^[a-zA-Z0-9_-]+$ only.
        assert conversion.messages[1] == {"role": "assistant", "content": "", "name": "bot"}
        assert "name" not in conversion.messages[3]
        assert [(i, c) for i, c in notes if c.startswith("name-")] == [(3, "name-dropped")]
    else:
        assert "bot" not in str(conversion.request)
        assert [(i, c) for i, c in notes if c.startswith("name-")] == [
            (1, "name-dropped"), (3, "name-dropped")]
    dropped = next(n for n in conversion.notes if n.code == "name-dropped")
    assert "https://" in dropped.message  # the provider's documented message shape


@pytest.mark.parametrize("target", PROVIDERS)
def test_names_inline_folds_the_name_into_the_text(target: str) -> None:
    items = handoff_codec.loads(SUMMARY)
    conversion = to_provider(items, target, names="inline")
    text = str(conversion.request)
    assert "[Triage Agent] yes" in text
    assert "[bot] " in text  # inline means inline, on every target
    inlined = [(i, c) for i, c in codes(items, target, names="inline") if c == "name-inlined"]
    assert inlined == [(1, "name-inlined"), (3, "name-inlined")]
    with pytest.raises(ValueError, match="names must be"):
        to_provider(items, target, names="hide")  # type: ignore[arg-type]


@pytest.mark.parametrize("target", PROVIDERS)
def test_a_name_on_a_typed_message_is_noted_too(target: str) -> None:
    items = [{"type": "message", "role": "user", "name": "amy", "content": "yo", "id": "1"}]
    notes = codes(items, target)
    assert notes == ([] if target == "chat_completions" else [(0, "name-dropped")])


# ---------------------------------------------------------------- wrapped base64
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(60))).decode("ascii")
WRAPPED = "\r\n".join(PNG[i:i + 16] for i in range(0, len(PNG), 16))


@pytest.mark.parametrize("target", NATIVE)
def test_base64_wrapped_over_lines_is_decoded(target: str) -> None:
    # RFC 2045, section 6.8: encoded lines are at most 76 characters, and a decoder ignores
    # the line breaks between them.
    assert "\n" in WRAPPED
    def items(data: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [
            {"type": "input_image", "image_url": f"data:image/png;base64,{data}"},
            {"type": "input_file", "file_data": f"data:application/pdf;base64,{data}",
             "filename": "r.pdf"},
            {"type": "input_file", "file_data": data, "filename": "notes.pdf"}]}]
    wrapped = to_provider(items(WRAPPED), target)
    assert wrapped.request == to_provider(items(PNG), target).request
    assert "\n" not in str(wrapped.request)
    with pytest.raises(ReplayError, match="base64"):
        to_provider(items("not base64!"), "bedrock")


# ---------------------------------------------------------------- property
CHAT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ChatCompletionMessageParam)
NAMES = st.sampled_from([None, "bot", "", "Triage Agent", "a:b", "ü"])
CONTENTS = st.sampled_from([None, "", " ", "hi", "line1\nline2", "(empty)", "."])


@st.composite
def named_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns of every role with None, "" or text content, some named, some tool rounds."""
    items: list[dict[str, Any]] = []
    for number in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 4)) == 0:
            call_id = f"c{number}"
            items.append({"type": "function_call", "call_id": call_id, "name": "f",
                          "arguments": draw(st.sampled_from(["", "{}", '{"q": 1}']))})
            items.append({"type": "function_call_output", "call_id": call_id,
                          "output": draw(CONTENTS)})
            continue
        if draw(st.integers(0, 5)) == 0:  # an assistant output message
            content = draw(st.sampled_from([None, "", [], [{"type": "output_text", "text": ""}],
                                            [{"type": "output_text", "text": "a"}]]))
            output: dict[str, Any] = {"type": "message", "role": "assistant", "id": f"m{number}",
                                      "content": content}
            name = draw(NAMES)
            if name is not None:
                output["name"] = name
            items.append(output)
            continue
        item: dict[str, Any] = {"role": draw(st.sampled_from(
            ["user", "assistant", "system", "developer"])), "content": draw(CONTENTS)}
        name = draw(NAMES)
        if name is not None:
            item["name"] = name
        if draw(st.integers(0, 5)) == 0:
            item["type"] = "message"
        items.append(item)
    return items


@settings(examples(600), suppress_health_check=[HealthCheck.too_slow])
@given(named_turns(), st.booleans(), st.sampled_from(["drop", "inline"]))
def test_whatever_loads_returns_replays_to_every_target(
        x: list[dict[str, Any]], restore: bool, names: str) -> None:
    items = handoff_codec.loads(handoff_codec.dumps(x))
    assert items == x
    if restore:
        items = restore_empty(items)
    nulls = sum(1 for item in items
                if item.get("content", item.get("output", "")) is None)
    for target in PROVIDERS:
        if turnless(items, target):  # every provider refuses a request with no turn
            continue
        conversion = to_provider(items, target, names=names)  # type: ignore[arg-type]
        # to_provider checked the body against the provider SDK's own types.
        assert conversion.checked_with == SCHEMAS[target]
        assert sum(n.code == "null-as-empty" for n in conversion.notes) == nulls
        if target == "chat_completions":  # kept names are written after validate's check
            for message in conversion.messages:
                CHAT_MESSAGE.validate_python(message)
        named = [index for index, item in enumerate(items) if "name" in item and "role" in item]
        noted = {n.index for n in conversion.notes if n.code.startswith("name-")}
        if target != "chat_completions":
            assert noted == set(named)
        else:
            assert noted <= set(named)
