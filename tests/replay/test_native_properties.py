"""Properties of ``to_provider`` over generated conversations, the legacy fixtures and the corpus.

* Any item list that ``validate(target="chat_completions")`` accepts converts
  for every native target, except for parts the target has no place for
  (audio for Anthropic and Bedrock, a web image URL for Bedrock), which raise
  ``ReplayError`` naming the item.
* The body validates against the provider's own types (``checked_with``).
* Turns and roles are those of the Chat Completions messages, up to the
  merges the target requires (each reported as a ``merged`` note) and a
  leading user turn where the conversation starts with the assistant.
* No text the target rejects is written; every tool call is answered in the
  next turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import handoff_codec
from handoff_codec.replay import Conversion, ReplayError, replayable, to_provider, validate
from tests.support.legacy_fixtures import ROWS, row_id
from tests.support.profiles import examples
from tests.support.turns import turnless

from .strategies import ITEM_LISTS, accepted_conversations, conversations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NATIVE = ("anthropic", "gemini", "bedrock")
ASSISTANT = {"anthropic": "assistant", "gemini": "model", "bedrock": "assistant"}
SCHEMAS = {"anthropic": "anthropic.types.MessageParam",
           "gemini": "google.genai.types.Content",
           "bedrock": "types_boto3_bedrock_runtime.type_defs.MessageTypeDef"}


def _parts(items: list[Any]) -> list[dict[str, Any]]:
    found = []
    for item in items:
        for key in ("content", "output"):
            if isinstance(item.get(key), list):
                found.extend(part for part in item[key] if isinstance(part, dict))
    return found


def unmappable(items: list[Any], target: str) -> bool:
    """Whether ``items`` hold a part that ``target`` documents it cannot take."""
    for part in _parts(items):
        kind = part.get("type")
        if kind == "input_audio" and target in ("anthropic", "bedrock"):
            return True
        if kind in ("input_image", "image_url") and target == "bedrock":
            url = part.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str) and not url.startswith(("data:", "s3://")):
                return True
    return False


def rejected(text: str, target: str) -> bool:
    return text == "" if target == "gemini" else not text.strip()


def check_conversion(items: list[Any], target: str) -> Conversion | None:
    """The properties of this module for one accepted item list and one target."""
    if turnless(items, target):  # every provider refuses a request with no turn
        with pytest.raises(ReplayError) as refused:
            to_provider(items, target)
        assert refused.value.code == "no-messages"
        return None
    messages = validate(items).messages
    conversion = to_provider(items, target)
    assert conversion.checked_with == SCHEMAS[target]
    # Roles: Chat Completions roles, tool as user, system moved out, runs merged.
    expected: list[str] = []
    merged = 0
    for message in messages:
        if message["role"] in ("system", "developer"):
            continue
        role = ASSISTANT[target] if message["role"] == "assistant" else "user"
        if expected and expected[-1] == role:
            merged += 1
        else:
            expected.append(role)
    leading = [n for n in conversion.notes if n.code == "leading-user-turn"]
    if expected and expected[0] != "user":
        expected.insert(0, "user")
        assert len(leading) == 1
    else:
        assert not leading
    native = conversion.messages
    assert [turn["role"] for turn in native] == expected
    assert len(conversion.merges) == merged
    # No rejected text, no empty turn.
    for turn in native:
        blocks = turn.get("content", turn.get("parts"))
        assert blocks, turn
        for block in blocks:
            text = block.get("text")
            assert not (isinstance(text, str) and rejected(text, target)), block
    # Every tool call answered in the next turn.
    for position, turn in enumerate(native):
        calls = _calls(turn, target)
        if calls:
            assert _answers(native[position + 1], target) == calls
    reasoning = sum(1 for item in items if item.get("type") == "reasoning")
    assert sum(1 for n in conversion.notes if n.code == "reasoning-dropped") == reasoning
    return conversion


def _calls(turn: dict[str, Any], target: str) -> list[str]:
    if target == "anthropic":
        return [b["id"] for b in turn["content"] if b.get("type") == "tool_use"]
    if target == "bedrock":
        return [b["toolUse"]["toolUseId"] for b in turn["content"] if "toolUse" in b]
    return [b["functionCall"]["name"] for b in turn["parts"] if "functionCall" in b]


def _answers(turn: dict[str, Any], target: str) -> list[str]:
    if target == "anthropic":
        return [b["tool_use_id"] for b in turn["content"] if b.get("type") == "tool_result"]
    if target == "bedrock":
        return [b["toolResult"]["toolUseId"] for b in turn["content"] if "toolResult" in b]
    return [b["functionResponse"]["name"] for b in turn["parts"] if "functionResponse" in b]


def check_every_target(items: list[Any]) -> None:
    if not validate(items).ok and not turnless(items):
        return
    for target in NATIVE:
        if unmappable(items, target):
            with pytest.raises(ReplayError) as raised:
                to_provider(items, target)
            assert unmappable([items[raised.value.index]], target)
        else:
            check_conversion(items, target)


@settings(examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(conversations)
def test_accepted_conversations_convert_for_every_target(items: list[dict[str, Any]]) -> None:
    check_every_target(items)


@settings(examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(ITEM_LISTS)
def test_accepted_item_lists_convert_for_every_target(items: list[dict[str, Any]]) -> None:
    check_every_target(items)


@settings(examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(accepted_conversations)
def test_conversations_with_media_and_empty_turns_convert(items: list[dict[str, Any]]) -> None:
    check_every_target(items)


# ---------------------------------------------------------------- fixtures and corpus
TRANSCRIPTS: dict[str, list[dict[str, Any]]] = json.loads(
    (FIXTURES / "legacy_transcripts.json").read_text("utf-8"))


@pytest.mark.parametrize("name", TRANSCRIPTS)
@pytest.mark.parametrize("target", NATIVE)
def test_legacy_transcripts_convert(name: str, target: str) -> None:
    items = replayable(TRANSCRIPTS[name])  # drops the `name` keys the converter refuses
    check_conversion(items, target)


@pytest.mark.parametrize("row", ROWS, ids=[row_id(row) for row in ROWS])
def test_recovered_corpus_converts(row: dict[str, Any]) -> None:
    """Every summary written by a real openai-agents release, read back, converts."""
    items = replayable(handoff_codec.decode(row["summary"]["content"]).items)
    assert validate(items).ok != turnless(items)
    for target in NATIVE:
        check_conversion(items, target)
