"""Differential tests: ``to_chat_messages`` / ``validate`` against the real converter.

The oracle is ``agents.models.chatcmpl_converter.Converter.items_to_messages``
from openai-agents 0.24.0 (pinned in the test extra), called without a model.
The claims checked, over hypothesis-generated item lists, fixed cases and the
legacy fixtures:

* when the SDK succeeds and ``to_chat_messages`` succeeds, the messages are equal;
* ``to_chat_messages`` succeeds exactly when the SDK does;
* ``validate(...).ok`` implies the SDK succeeds; when the SDK succeeds and
  ``validate`` does not, every error is one of the Chat Completions rules that
  the SDK does not check (``SDK_UNCHECKED``).

Documented disagreements (each has a fixed test below; docs/replay.md lists
them too):

1. Chat Completions rules the SDK does not check: an unanswered tool call, a
   tool output answering nothing, ``content: []``, and an assistant output
   message with no text (the SDK emits ``{"role": "assistant"}`` with no
   content). The SDK converts; ``validate`` reports an error. Our converter
   gives the same messages as the SDK.
2. ``video_url`` parts: the SDK emits a part type that openai's
   ``ChatCompletionContentPartParam`` does not have; we raise ReplayError.
3. ``file_search_call`` items: the SDK invents a function tool call named
   ``file_search_call`` that nothing answers; we raise ReplayError.
4. Values of the wrong type that the SDK copies unchecked (a non-string
   ``call_id``, ``name``, ``arguments``, ``refusal`` or part ``text``): the SDK
   "succeeds" with a message openai's schema rejects; we raise ReplayError.
5. Items that are mappings but not dicts: the SDK rejects them, we accept them.
6. ``reasoning`` items are always dropped; the SDK raises AttributeError on one
   whose ``provider_data`` is not a dict.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from agents.models.chatcmpl_converter import Converter
from hypothesis import HealthCheck, given, settings

import handoff_codec
from handoff_codec.replay import ReplayError, to_chat_messages, validate
from tests.support.profiles import examples

from .strategies import ITEM_LISTS, conversations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# Error codes of validate() for rules that the SDK converter does not check.
SDK_UNCHECKED = {"unanswered-tool-call", "orphan-tool-output", "empty-content-list",
                 "null-content", "tool-call-answered-late", "duplicate-tool-call-id",
                 "duplicate-tool-output", "no-messages"}


def sdk(items: Any) -> list[dict[str, Any]] | None:
    """The SDK's messages for ``items``, or None when it raises."""
    try:
        return [dict(m) for m in Converter.items_to_messages(copy.deepcopy(items))]
    except Exception:
        return None


def ours(items: Any) -> list[dict[str, Any]] | None:
    try:
        return [dict(m) for m in to_chat_messages(items)]
    except ReplayError:
        return None


def check_against_sdk(items: list[Any]) -> None:
    """The differential claims of this module, for one item list."""
    before = copy.deepcopy(items)
    expected = sdk(items)
    got = ours(items)
    report = validate(items)
    assert items == before, "the input was modified"
    assert (got is None) == (expected is None), (items, expected, got)
    if expected is not None:
        assert got == expected
        assert report.messages == expected or not report.ok
    if report.ok and expected is None:
        # The one rule Chat Completions is kinder about: a name on a message.
        assert any(isinstance(item, dict) and "name" in item for item in items), items
    elif report.ok:
        assert report.messages == expected
    elif expected is not None:
        codes = {problem.code for problem in report.errors}
        assert codes <= SDK_UNCHECKED, (items, report.problems)


@settings(examples(500), suppress_health_check=[HealthCheck.too_slow])
@given(ITEM_LISTS)
def test_matches_sdk_on_arbitrary_items(items: list[dict[str, Any]]) -> None:
    check_against_sdk(items)


@settings(examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(conversations)
def test_matches_sdk_on_conversations(items: list[dict[str, Any]]) -> None:
    check_against_sdk(items)


# ---------------------------------------------------------------- fixed cases
TOOL_ROUND = [
    {"role": "user", "content": "weather?"},
    {"type": "message", "role": "assistant", "id": "m1", "status": "completed",
     "content": [{"type": "output_text", "text": "Checking."}]},
    {"type": "function_call", "call_id": "a", "name": "weather", "arguments": '{"c":"Oslo"}'},
    {"type": "reasoning", "id": "rs", "summary": []},
    {"type": "function_call", "call_id": "b", "name": "time", "arguments": ""},
    {"type": "function_call_output", "call_id": "a", "output": "sunny"},
    {"type": "function_call_output", "call_id": "b",
     "output": [{"type": "input_text", "text": "noon"}, {"type": "input_image",
                                                         "image_url": "https://x/i.png"}]},
    {"role": "assistant", "content": "Sunny at noon."},
]

FIXED: dict[str, Any] = {
    "tool round, merged calls": TOOL_ROUND,
    "all four roles": [{"role": r, "content": r} for r in ("system", "developer", "user",
                                                           "assistant")],
    "type message items": [
        {"type": "message", "role": "user", "id": "u", "content": [
            {"type": "input_text", "text": "look", "prompt_cache_breakpoint": {"mode": "explicit"}},
            {"type": "input_image", "image_url": "https://x/a.png", "detail": "original"},
            {"type": "input_audio", "input_audio": {"data": "AAA=", "format": "mp3"}},
            {"type": "input_file", "file_id": "file_9", "filename": "r.pdf"}]},
        {"type": "message", "role": "system", "status": "completed",
         "content": [{"type": "input_text", "text": "be brief"},
                     {"type": "input_image", "image_url": "https://x/a.png"}]},
        {"type": "message", "role": "developer", "content": "dev"},
    ],
    "output message after calls joins them": [
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "message", "role": "assistant", "id": "m", "content": [
            {"type": "output_text", "text": "one"}, {"type": "output_text", "text": "two"}]},
        {"type": "function_call_output", "call_id": "a", "output": "x"},
    ],
    "tool output without text": [
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": []},
    ],
    "empty strings replay": [{"role": "user", "content": ""},
                             {"role": "assistant", "content": ""}],
    "str items": "just text",
}


@pytest.mark.parametrize("name", FIXED)
def test_fixed_cases_equal_sdk(name: str) -> None:
    items = FIXED[name]
    expected = sdk(items)
    assert expected is not None
    assert to_chat_messages(items) == expected
    if not isinstance(items, str):
        assert validate(items).ok
        check_against_sdk(items)


SHAPES = [
    {"role": "user", "content": "x", "phase": "commentary"},
    {"role": "assistant", "content": "x", "phase": "final_answer"},
    {"role": "user", "content": "x", "phase": "bogus"},
    {"type": "message", "role": "user", "content": "x", "phase": "bogus"},
    {"type": "message", "role": "assistant", "content": "x", "phase": "bogus", "id": "m"},
    {"type": "message", "role": "assistant", "content": "x"},
    {"type": "message", "role": "assistant", "content": "x", "status": "completed"},
    {"type": "message", "role": "assistant", "id": "m", "content": "x"},
    {"type": None, "role": "user", "content": "x"},
    {"type": "function_call", "role": "user", "content": "x"},
    {"role": "user", "content": "x", "id": "1"},
    {"type": "message", "role": "system", "content": "x", "name": "n"},
    {"role": "tool", "content": "x"},
    {"type": "message", "role": "developer"},
    {"role": ["user"], "content": "x"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "x"}]},
    {"role": "assistant", "content": [{"type": "input_text", "text": "x"}]},
]


@pytest.mark.parametrize("item", SHAPES, ids=[json.dumps(s)[:60] for s in SHAPES])
def test_message_shapes_are_recognised_as_the_sdk_does(item: dict[str, Any]) -> None:
    check_against_sdk([item])
    check_against_sdk([{"role": "user", "content": "before"}, item])


def test_consecutive_calls_share_one_assistant_message() -> None:
    messages = to_chat_messages(TOOL_ROUND)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["a", "b"]
    assert messages[1]["content"] == "Checking."
    assert messages[1]["tool_calls"][1]["function"]["arguments"] == "{}"


def test_reasoning_is_dropped_with_a_note() -> None:
    report = validate(TOOL_ROUND)
    assert report.ok
    notes = [(p.index, p.code, p.severity) for p in report.problems]
    assert (3, "reasoning-dropped", "info") in notes
    assert all(m.get("role") != "reasoning" for m in report.messages)


@pytest.mark.parametrize(("items", "index"), [
    ([{"role": "user", "content": "ok"}, {"role": "user", "content": None}], 1),
    ([{"role": "user", "content": "ok"}, {"type": "item_reference", "id": "x"}], 1),
    ([{"role": "user", "name": "bob", "content": "hi"}], 0),
    ([{"type": "function_call_output", "output": "x"}], 0),
    ([{"role": "a", "content": "b"}, {"role": "user", "content": [{"type": "input_image"}]}], 0),
])
def test_replay_error_names_the_item(items: list[dict[str, Any]], index: int) -> None:
    assert sdk(items) is None
    with pytest.raises(ReplayError) as raised:
        to_chat_messages(items)
    assert raised.value.index == index
    assert f"item {index}:" in str(raised.value)
    assert not validate(items, target="mistral").ok


def test_name_key_rejected_as_the_sdk_does() -> None:
    item = {"role": "user", "name": "bob", "content": "hi"}
    assert sdk([item]) is None
    # Chat Completions itself takes it; a target whose messages have no name does not.
    assert validate([item]).ok
    report = validate([item], target="anthropic")
    assert [(p.index, p.code) for p in report.errors] == [(0, "name-key")]
    # Without the name, both accept it: the rule is about the key.
    assert validate([{"role": "user", "content": "hi"}]).ok


# ---------------------------------------------------------------- disagreements
def test_disagreement_1_rules_the_sdk_does_not_check() -> None:
    cases = {
        "unanswered-tool-call": [{"type": "function_call", "call_id": "a", "name": "f",
                                  "arguments": "{}"}],
        "orphan-tool-output": [{"type": "function_call_output", "call_id": "z", "output": "x"}],
        "empty-content-list": [{"role": "user", "content": []}],
        "null-content": [{"type": "message", "role": "assistant", "id": "m", "content": []}],
    }
    for code, items in cases.items():
        expected = sdk(items)
        assert expected is not None, code
        assert to_chat_messages(items) == expected
        assert code in {p.code for p in validate(items).errors}


@pytest.mark.parametrize("items", [
    [{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "https://v"}}]}],
    [{"type": "file_search_call", "id": "fs", "queries": ["q"], "status": "completed"}],
    [{"type": "function_call", "call_id": 1, "name": "f", "arguments": "{}"},
     {"type": "function_call_output", "call_id": 1, "output": "x"}],
    [{"type": "message", "role": "assistant", "id": "m",
      "content": [{"type": "refusal", "refusal": 5}]}],
    [{"role": "user", "content": [{"type": "input_text", "text": 7}]}],
], ids=["2-video_url", "3-file_search_call", "4-int-call-id", "4-int-refusal", "4-int-text"])
def test_disagreements_2_to_4_sdk_converts_we_raise(items: list[dict[str, Any]]) -> None:
    assert sdk(items) is not None
    with pytest.raises(ReplayError):
        to_chat_messages(items)
    assert not validate(items).ok


def test_disagreement_5_mappings_that_are_not_dicts() -> None:
    items = [MappingProxyType({"role": "user", "content": "x"})]
    assert sdk(items) is None
    assert to_chat_messages(items) == [{"role": "user", "content": "x"}]


def test_disagreement_6_reasoning_with_bad_provider_data() -> None:
    items = [{"role": "user", "content": "x"},
             {"type": "reasoning", "id": "r", "summary": [], "provider_data": None}]
    assert sdk(items) is None
    assert to_chat_messages(items) == [{"role": "user", "content": "x"}]


# ---------------------------------------------------------------- legacy fixtures
def _fixture_transcripts() -> list[tuple[str, list[dict[str, Any]]]]:
    data = json.loads((FIXTURES / "legacy_transcripts.json").read_text("utf-8"))
    cases = list(data.items())
    rows_file = FIXTURES / "legacy_summaries.jsonl"
    if rows_file.exists():
        for line in rows_file.read_text("utf-8").splitlines():
            row = json.loads(line)
            try:
                items = handoff_codec.loads(row["summary"]["content"])
            except handoff_codec.DecodeError:
                continue  # the legacy reader is not finished
            cases.append((f"{row['version']}/{row['case']}/{row['kind']}", items))
    return cases


def test_legacy_fixtures_match_sdk() -> None:
    cases = _fixture_transcripts()
    assert len(cases) >= 20
    for _name, items in cases:
        check_against_sdk(items)
