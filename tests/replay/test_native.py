"""``to_provider``: fixed cases for each documented rule of each native API.

Each rule test names the public report of the rejection it guards and checks
both directions: the rejected shape is never written, and its accepted
neighbour is left as it is. The bodies are checked against the providers' own
SDK types by ``to_provider`` itself (``checked_with``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from handoff_codec.replay import Conversion, ReplayError, to_provider, validate

NATIVE = ("anthropic", "gemini", "bedrock")
SCHEMAS = {"anthropic": "anthropic.types.MessageParam",
           "gemini": "google.genai.types.Content",
           "bedrock": "types_boto3_bedrock_runtime.type_defs.MessageTypeDef",
           "chat_completions": "openai.types.chat.ChatCompletionMessageParam"}
PNG = "data:image/png;base64,iVBORw0KGgo="


def call(call_id: str, name: str = "f", arguments: str = "{}") -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def output(call_id: str, text: Any = "ok") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def texts(conversion: Conversion) -> list[str]:
    """Every text block's text in the request, system prompt included."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("text"), str):
                found.append(value["text"])
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(conversion.request)
    return found


def codes(conversion: Conversion) -> list[tuple[int | None, str]]:
    return [(note.index, note.code) for note in conversion.notes]


# ---------------------------------------------------------------- shape of the result
def test_conversion_shape_per_target() -> None:
    items = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    anthropic = to_provider(items, "anthropic")
    assert anthropic.request == {"system": [{"type": "text", "text": "be brief"}],
                                 "messages": [{"role": "user",
                                               "content": [{"type": "text", "text": "hi"}]}]}
    gemini = to_provider(items, "gemini")
    assert gemini.request == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                              "system_instruction": {"parts": [{"text": "be brief"}]}}
    bedrock = to_provider(items, "bedrock")
    assert bedrock.request == {"system": [{"text": "be brief"}],
                               "messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    chat = to_provider(items, "chat_completions")
    assert chat.request == {"messages": items}
    for conversion in (anthropic, gemini, bedrock, chat):
        assert conversion.checked_with == SCHEMAS[conversion.target]
        assert conversion.notes == [] and conversion.merges == []
    assert gemini.messages == gemini.request["contents"]
    assert anthropic.messages == anthropic.request["messages"]


def test_unknown_target_and_rejected_placeholder() -> None:
    with pytest.raises(ValueError, match="unknown target 'claude'"):
        to_provider([], "claude")
    with pytest.raises(ValueError, match="rejects the placeholder"):
        to_provider([], "bedrock", placeholder=" ")
    with pytest.raises(ValueError, match="rejects the placeholder"):
        to_provider([], "gemini", placeholder="")


def test_input_is_never_modified() -> None:
    items = [{"role": "user", "content": ""}, call("a"), output("a", ""),
             {"role": "assistant", "content": [{"type": "output_text", "text": ""}],
              "type": "message", "id": "m"}]
    snapshot = copy.deepcopy(items)
    for target in NATIVE:
        to_provider(items, target)
    assert items == snapshot


# ---------------------------------------------------------------- Anthropic
@pytest.mark.parametrize("empty", ["", " \n\t"])
def test_anthropic_never_writes_empty_or_blank_text(empty: str) -> None:
    # "messages: text content blocks must be non-empty"
    # https://github.com/anthropics/claude-code/issues/59812 ; whitespace-only:
    # "text content blocks must contain non-whitespace text"
    # https://github.com/anthropics/claude-code/issues/23440
    items = [{"role": "user", "content": empty}, {"role": "assistant", "content": "ok"},
             {"role": "user", "content": [{"type": "input_text", "text": "a"},
                                          {"type": "input_text", "text": empty}]}]
    conversion = to_provider(items, "anthropic")
    assert all(text.strip() for text in texts(conversion))
    assert conversion.messages[0]["content"] == [{"type": "text", "text": "."}]
    assert conversion.messages[2]["content"] == [{"type": "text", "text": "a"}]
    assert codes(conversion) == [(0, "empty-turn")]
    # Real text, spaces included, is written as it is.
    kept = to_provider([{"role": "user", "content": " x "}], "anthropic")
    assert kept.messages[0]["content"] == [{"type": "text", "text": " x "}]


def test_anthropic_answers_every_tool_use_in_the_next_user_turn() -> None:
    # "`tool_use` ids were found without `tool_result` blocks immediately after ... Each
    # `tool_use` block must have a corresponding `tool_result` block in the next message."
    # https://github.com/anthropics/claude-code/issues/1237
    items = [{"role": "user", "content": "go"}, call("a"), call("b"), output("a", "1"),
             output("b", "2"), {"role": "user", "content": "thanks"}]
    conversion = to_provider(items, "anthropic")
    assistant, answer = conversion.messages[1], conversion.messages[2]
    assert [b["id"] for b in assistant["content"] if b["type"] == "tool_use"] == ["a", "b"]
    assert answer["role"] == "user"
    assert [b.get("tool_use_id") for b in answer["content"]] == ["a", "b", None]
    assert answer["content"][2] == {"type": "text", "text": "thanks"}
    assert conversion.merges == [note for note in conversion.notes if note.code == "merged"]
    assert [(n.index, n.code) for n in conversion.merges] == [(4, "merged"), (5, "merged")]
    # A call whose answer comes after another message, or never, cannot be replayed.
    late = [{"role": "user", "content": "go"}, call("a"), {"role": "user", "content": "?"},
            output("a")]
    unanswered = [{"role": "user", "content": "go"}, call("a")]
    for bad in (late, unanswered):
        with pytest.raises(ReplayError) as raised:
            to_provider(bad, "anthropic")
        assert raised.value.index == 1
        assert not validate(bad).ok


def test_anthropic_tool_result_without_text_has_no_empty_block() -> None:
    conversion = to_provider([{"role": "user", "content": "go"}, call("a"), output("a", "")],
                             "anthropic")
    assert conversion.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "a"}]


def test_anthropic_images_and_files_are_native_blocks() -> None:
    parts = [{"type": "input_text", "text": "look"},
             {"type": "input_image", "image_url": PNG},
             {"type": "input_image", "image_url": "https://x/a.png"},
             {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=",
              "filename": "r.pdf"}]
    conversion = to_provider([{"role": "user", "content": parts}], "anthropic")
    assert conversion.messages[0]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": "iVBORw0KGgo="}},
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                        "data": "JVBERi0="}, "title": "r.pdf"},
    ]


# ---------------------------------------------------------------- Gemini
def test_gemini_never_writes_empty_parts_or_empty_text() -> None:
    # "contents.parts must not be empty" https://github.com/vercel/ai/issues/3775 ;
    # "Unable to submit request because it has an empty text parameter"
    # https://github.com/google-gemini/deprecated-generative-ai-js/issues/361
    items = [{"role": "user", "content": ""},
             {"type": "message", "role": "assistant", "id": "m", "content": []},
             {"role": "user", "content": [{"type": "input_text", "text": ""}]}]
    conversion = to_provider(items, "gemini")
    assert all(content["parts"] for content in conversion.messages)
    assert "" not in texts(conversion)
    assert [c["role"] for c in conversion.messages] == ["user", "model", "user"]
    assert codes(conversion) == [(0, "empty-turn"), (1, "empty-turn"), (2, "empty-turn")]
    # Gemini takes whitespace: it is kept.
    assert to_provider([{"role": "user", "content": " "}], "gemini").messages == [
        {"role": "user", "parts": [{"text": " "}]}]


def test_gemini_function_call_and_response() -> None:
    items = [{"role": "user", "content": "go"}, call("a", "weather", '{"city": "Oslo"}'),
             output("a", "sunny"), {"role": "assistant", "content": "Sunny."}]
    conversion = to_provider(items, "gemini")
    assert conversion.messages == [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "weather",
                                                      "args": {"city": "Oslo"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "weather",
                                                         "response": {"output": "sunny"}}}]},
        {"role": "model", "parts": [{"text": "Sunny."}]},
    ]


def test_gemini_system_only_is_refused() -> None:
    # Empty `contents`: "contents is not specified"
    # https://github.com/NousResearch/hermes-agent/issues/57940
    with pytest.raises(ReplayError) as refused:
        to_provider([{"role": "system", "content": "be nice"}], "gemini")
    assert refused.value.code == "no-messages"


# ---------------------------------------------------------------- Bedrock
@pytest.mark.parametrize("blank", ["", " ", "\n\t "])
def test_bedrock_never_writes_whitespace_only_text(blank: str) -> None:
    # "The text field in the ContentBlock object at messages.N.content.0 is blank"
    # https://github.com/OpenHands/OpenHands/issues/5339 ; whitespace-only text (so a " "
    # placeholder) is rejected too: https://github.com/NousResearch/hermes-agent/pull/63983
    items = [{"role": "user", "content": "go"}, call("a"), output("a", blank),
             {"role": "assistant", "content": blank}]
    conversion = to_provider(items, "bedrock")
    assert all(text.strip() for text in texts(conversion))
    assert conversion.messages[2]["content"] == [
        {"toolResult": {"toolUseId": "a", "content": [{"text": "."}]}}]
    assert conversion.messages[3]["content"] == [{"text": "."}]
    assert codes(conversion) == [(2, "empty-turn"), (3, "empty-turn")]
    kept = to_provider([{"role": "user", "content": " a b "}], "bedrock")
    assert kept.messages[0]["content"] == [{"text": " a b "}]


def test_bedrock_starts_with_a_user_turn_and_alternates() -> None:
    # "A conversation must start with a user message"
    # https://github.com/langgenius/dify/issues/12340 ; "A conversation must alternate
    # between user and assistant roles" https://github.com/langchain-ai/langchain-aws/issues/130
    items = [{"role": "assistant", "content": "Hello, how can I help?"},
             {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    conversion = to_provider(items, "bedrock")
    assert [m["role"] for m in conversion.messages] == ["user", "assistant", "user"]
    assert conversion.messages[0]["content"] == [{"text": "."}]
    assert conversion.messages[2]["content"] == [{"text": "a"}, {"text": "b"}]
    assert codes(conversion) == [(0, "leading-user-turn"), (2, "merged")]
    # A conversation that starts with the user gets no extra turn.
    assert codes(to_provider(items[1:2], "bedrock")) == []


def test_bedrock_images_and_documents_carry_bytes() -> None:
    parts = [{"type": "input_image", "image_url": PNG},
             {"type": "input_image", "image_url": "s3://bucket/a.jpg"},
             {"type": "input_file", "file_data": "aGVsbG8=", "filename": "notes v2.txt"}]
    conversion = to_provider([{"role": "user", "content": parts}], "bedrock")
    assert conversion.messages[0]["content"] == [
        {"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n\x1a\n"}}},
        {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://bucket/a.jpg"}}}},
        {"document": {"format": "txt", "name": "notes v2", "source": {"bytes": b"hello"}}},
    ]
    dumped = json.loads(conversion.model_dump_json())
    assert dumped["request"]["messages"][0]["content"][0]["image"]["source"]["bytes"] == \
        "iVBORw0KGgo="


# ---------------------------------------------------------------- every target
@pytest.mark.parametrize("target", NATIVE)
def test_system_messages_go_to_the_system_prompt(target: str) -> None:
    items = [{"role": "developer", "content": "rule 1"}, {"role": "user", "content": "hi"},
             {"role": "system", "content": "rule 2"}, {"role": "assistant", "content": "yo"}]
    conversion = to_provider(items, target)
    assert len(conversion.messages) == 2
    assert "rule 1" in texts(conversion) and "rule 2" in texts(conversion)
    assert codes(conversion) == [(2, "system-moved")]


@pytest.mark.parametrize("target", NATIVE)
def test_reasoning_is_dropped_with_a_note_never_rendered(target: str) -> None:
    items = [{"role": "user", "content": "hi"},
             {"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text",
                                                             "text": "secret plan"}]},
             {"role": "assistant", "content": "yo"}]
    conversion = to_provider(items, target)
    assert (1, "reasoning-dropped") in codes(conversion)
    assert "secret plan" not in json.dumps(conversion.request, default=str)
    assert len(conversion.messages) == 2


@pytest.mark.parametrize("target", NATIVE)
@pytest.mark.parametrize(("items", "index"), [
    ([{"role": "user", "content": "ok"}, {"type": "item_reference", "id": "x"}], 1),
    ([{"role": "user", "content": "ok"}, call("a", arguments="[1]"), output("a")], 1),
    ([{"role": "user", "content": "ok"}, call("a", arguments="{oops"), output("a")], 1),
    ([{"role": "user", "content": [{"type": "input_file", "file_id": "file_1"}]}], 0),
    ([{"role": "user", "content": "ok"}, output("z")], 1),
])
def test_replay_error_names_the_item(target: str, items: list[Any], index: int) -> None:
    with pytest.raises(ReplayError) as raised:
        to_provider(items, target)
    assert raised.value.index == index


@pytest.mark.parametrize(("target", "part"), [
    ("anthropic", {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}}),
    ("bedrock", {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}}),
    ("bedrock", {"type": "input_image", "image_url": "https://x/a.png"}),
    ("anthropic", {"type": "input_image", "image_url": "data:image/bmp;base64,Qk0="}),
    ("gemini", {"type": "input_image", "image_url": "https://x/no-extension"}),
])
def test_parts_a_target_cannot_take_are_errors(target: str, part: dict[str, Any]) -> None:
    items = [{"role": "user", "content": "hi"}, {"role": "user", "content": [part]}]
    assert validate(items).ok  # fine for Chat Completions
    with pytest.raises(ReplayError) as raised:
        to_provider(items, target)
    assert raised.value.index == 1


def test_gemini_takes_audio() -> None:
    part = {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "mp3"}}
    conversion = to_provider([{"role": "user", "content": [part]}], "gemini")
    assert conversion.messages[0]["parts"] == [{"inlineData": {"mimeType": "audio/mp3",
                                                               "data": "AAA="}}]


@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
def test_tool_ids_the_api_refuses_are_rewritten_and_reported(target: str) -> None:
    items = [{"role": "user", "content": "go"}, call("call:1"), output("call:1")]
    conversion = to_provider(items, target)
    assert "call:1" not in json.dumps(conversion.request)
    assert "call_1" in json.dumps(conversion.request)
    assert codes(conversion) == [(1, "tool-id-rewritten")]


def test_chat_completions_target_is_the_validated_messages() -> None:
    items = [{"role": "user", "content": "hi"}, {"type": "reasoning", "id": "r", "summary": []}]
    conversion = to_provider(items, "chat_completions")
    assert conversion.request == {"messages": [{"role": "user", "content": "hi"}]}
    assert codes(conversion) == [(1, "reasoning-dropped")]
    with pytest.raises(ReplayError) as raised:
        to_provider([{"role": "user", "content": "hi"}, {"type": "compaction", "id": "c"}],
                     "chat_completions")
    assert raised.value.index == 1


# ---------------------------------------------------------------- merge before placeholder
@pytest.mark.parametrize("target", NATIVE)
@pytest.mark.parametrize("empty", ["", None, []])
def test_an_empty_turn_merges_before_it_gets_a_placeholder(target: str, empty: Any) -> None:
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": empty},
             {"role": "assistant", "content": "real answer"}]
    conversion = to_provider(items, target)
    assert texts(conversion) == ["hi", "real answer"]
    assert [n.code for n in conversion.notes if n.code in ("merged", "empty-turn")] == ["merged"]
    # The same with a tool call after the empty turn: the call alone, no placeholder.
    with_call = [*items[:2], call("a"), output("a", "done")]
    conversion = to_provider(with_call, target)
    assert "." not in texts(conversion)
    assistant = conversion.messages[1]
    assert len(assistant.get("content", assistant.get("parts"))) == 1
    # An empty turn that cannot merge still carries the placeholder.
    alone = [items[0], items[1], {"role": "user", "content": "hello?"}]
    conversion = to_provider(alone, target)
    assert texts(conversion) == ["hi", ".", "hello?"]
    assert codes(conversion) == ([(1, "null-as-empty")] if empty is None else []) + [
        (1, "empty-turn")]


def test_chat_completions_keeps_the_turns_as_they_are() -> None:
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
             {"role": "assistant", "content": "real answer"}]
    assert to_provider(items, "chat_completions").request == {"messages": items}
