"""Provider rules that made a request exit 0 although the provider refuses it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handoff_codec.replay import ReplayError, to_provider, validate


@pytest.mark.parametrize("tail", [" ", "\n", "  \t\n"])
@pytest.mark.parametrize("content", ["ok{}", [{"type": "input_text", "text": "ok{}"}]])
def test_anthropic_final_assistant_text_is_stripped_as_a_repair(tail: str, content: Any) -> None:
    # "messages: final assistant content cannot end with trailing whitespace"
    # https://github.com/tailcallhq/forgecode/issues/1872
    body = content.format(tail) if isinstance(content, str) else [
        {**content[0], "text": content[0]["text"].format(tail)}]
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": body}]
    conversion = to_provider(items, "anthropic")
    assert conversion.messages[-1]["content"][-1]["text"] == "ok"
    assert [n.code for n in conversion.repairs] == ["trailing-whitespace"]
    assert [p.code for p in validate(items, target="anthropic").errors] == ["trailing-whitespace"]


def test_only_the_final_assistant_turn_is_stripped() -> None:
    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok "},
             {"role": "user", "content": "and? "}]
    conversion = to_provider(items, "anthropic")
    assert conversion.repairs == []
    assert conversion.messages[1]["content"][0]["text"] == "ok "


MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=5, unique=True))
def test_mistral_tool_call_ids_are_nine_letters_or_digits(ids: list[str]) -> None:
    # Mistral: "Tool call id has to be of length 9" and [a-zA-Z0-9]
    # (https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py)
    items: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for call_id in ids:
        items.append({"type": "function_call", "call_id": call_id, "name": "f",
                      "arguments": "{}"})
    for call_id in ids:
        items.append({"type": "function_call_output", "call_id": call_id, "output": "x"})
    conversion = to_provider(items, "mistral")
    calls = [c["id"] for m in conversion.messages for c in m.get("tool_calls", ())]
    answers = [m["tool_call_id"] for m in conversion.messages if m["role"] == "tool"]
    assert calls == answers and len(set(calls)) == len(ids)
    assert all(MISTRAL_ID.match(call) for call in calls)
    rewritten = sum(not MISTRAL_ID.match(call_id) for call_id in ids)
    assert sum(n.code == "tool-id-rewritten" for n in conversion.repairs) == rewritten


def test_mistral_refuses_a_file_part() -> None:
    items = [{"role": "user", "content": [{"type": "input_file", "filename": "a.pdf",
                                           "file_data": "data:application/pdf;base64,JVBERi0="}]}]
    with pytest.raises(ReplayError, match="Mistral") as refused:
        to_provider(items, "mistral")
    assert refused.value.index == 0
    assert not validate(items, target="mistral").ok


EMPTY_LIST = [{"role": "user", "content": []}, {"role": "assistant", "content": "ok"}]


@pytest.mark.parametrize("target", ["chat_completions", "anthropic", "gemini", "bedrock",
                                    "mistral"])
def test_an_empty_content_list_is_a_repair_for_every_target(target: str) -> None:
    """validate() calls it an error, and replay repairs it, on every target alike."""
    assert [p.code for p in validate(EMPTY_LIST, target=target).errors] == ["empty-content-list"]
    conversion = to_provider(EMPTY_LIST, target)
    assert [(n.index, n.code) for n in conversion.repairs] == [(0, "empty-turn")]


@pytest.mark.parametrize("target", ["anthropic", "gemini", "bedrock", "mistral"])
def test_notes_name_the_target_and_say_one_thing(target: str) -> None:
    items = [{"role": "user", "content": "hi"}, {"type": "reasoning", "id": "r", "summary": []},
             {"role": "assistant", "content": None, "name": "a b"}]
    messages = [p.message for p in validate(items, target=target).problems]
    messages += [n.message for n in to_provider(items, target).notes]
    assert all("Chat Completions" not in message for message in messages), messages
    assert all('as "" is' not in message for message in messages), messages


def test_a_chat_completions_name_note_does_not_contradict_itself() -> None:
    items = [{"role": "user", "content": "hi", "name": "a b"}]
    [note] = [n for n in to_provider(items, "chat_completions").notes if n.code == "name-dropped"]
    assert "takes no name" not in note.message and "^[a-zA-Z0-9_-]+$" in note.message
