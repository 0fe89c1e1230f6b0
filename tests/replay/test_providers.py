"""Per-provider empty-content rules, and ``sanitize``.

Each rule test names the public report of the rejection it guards and checks
both directions: the rejected shape is reported, and the accepted neighbour is
not. ``validate`` is given items; messages reach it through the converter.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from handoff_codec.replay import PROFILES, TARGETS, sanitize, validate

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def codes(items: list[dict[str, Any]], target: str) -> set[str]:
    return {problem.code for problem in validate(items, target=target).errors}


def with_call(content: Any) -> list[dict[str, Any]]:
    """An assistant output message that joins a tool call, and the call's output."""
    return [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "message", "role": "assistant", "id": "m",
         "content": [{"type": "output_text", "text": content}]},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]


def test_every_target_has_a_profile_with_sources() -> None:
    assert set(TARGETS) == set(PROFILES) == {"chat_completions", "anthropic", "bedrock",
                                             "gemini", "mistral"}
    for profile in PROFILES.values():
        assert profile.sources
        assert all(url.startswith("https://github.com/") for _, url in profile.sources)


def test_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown target 'claude'"):
        validate([], target="claude")
    with pytest.raises(ValueError, match="unknown target"):
        sanitize([], target="openai-ish")


# ---------------------------------------------------------------- OpenAI (every target)
@pytest.mark.parametrize("target", TARGETS)
def test_null_content_without_tool_calls(target: str) -> None:
    # OpenAI: "Invalid value for 'content': expected a string, got null."
    # https://github.com/langchain-ai/langchainjs/issues/4153 ; and openai-python's
    # ChatCompletionAssistantMessageParam: content is "Required unless `tool_calls` ...".
    # An output message with no text converts to an assistant message without content.
    no_text = [{"type": "message", "role": "assistant", "id": "m", "content": []}]
    assert "null-content" in codes(no_text, target)
    # With tool calls, null content is the standard form.
    with_calls = [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": ""},
                  {"type": "function_call_output", "call_id": "c1", "output": "ok"}]
    report = validate(with_calls, target=target)
    assert report.messages[0]["content"] is None
    assert report.ok


@pytest.mark.parametrize("target", TARGETS)
def test_empty_content_list(target: str) -> None:
    # OpenAI: https://github.com/openai/openai-python/issues/1812 cites the OpenAPI spec
    # as disallowing an empty content array (that report saw the server accept one; we
    # follow the spec). Anthropic: "all messages must have
    # non-empty content" https://github.com/anthropics/claude-code/issues/3196 ; Bedrock:
    # "The content field in the Message object ... is empty"
    # https://github.com/cline/cline/issues/9213 ; Gemini: "contents.parts must not be
    # empty" https://github.com/vercel/ai/issues/3775
    assert "empty-content-list" in codes([{"role": "user", "content": []}], target)
    one_part = [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert validate(one_part, target=target).ok


# ---------------------------------------------------------------- Anthropic
def test_anthropic_rejects_empty_text_blocks() -> None:
    # "messages: text content blocks must be non-empty"
    # https://github.com/anthropics/claude-code/issues/59812
    # https://github.com/stackblitz/bolt.new/issues/7426
    for role in ("user", "assistant", "system", "developer"):
        assert "empty-text" in codes([{"role": role, "content": ""}], "anthropic"), role
    parts = [{"role": "user", "content": [{"type": "input_text", "text": "a"},
                                          {"type": "input_text", "text": ""}]}]
    assert "empty-text" in codes(parts, "anthropic")
    # The same items are fine for OpenAI, and non-empty text is fine for Anthropic.
    assert validate([{"role": "user", "content": ""}], target="chat_completions").ok
    assert validate([{"role": "user", "content": "a"}], target="anthropic").ok


def test_anthropic_rejects_whitespace_only_text() -> None:
    # "messages: text content blocks must contain non-whitespace text"
    # https://github.com/anthropics/claude-code/issues/23440
    # https://github.com/LibreChat-AI/agents/pull/124 (a table of API results)
    assert "blank-text" in codes([{"role": "user", "content": " \n\t"}], "anthropic")
    assert validate([{"role": "user", "content": " x "}], target="anthropic").ok


def test_anthropic_empty_text_next_to_tool_calls() -> None:
    # An OpenAI-compatible proxy turns content "" next to tool_calls into an empty text
    # block (HTTP 400); content None with tool_calls is fine:
    # https://github.com/NousResearch/hermes-agent/issues/11906 . Same for Bedrock:
    # https://github.com/anomalyco/opencode/pull/17381
    assert "empty-text" in codes(with_call(""), "anthropic")
    assert "empty-text" in codes(with_call(""), "bedrock")
    assert validate(with_call("Checking."), target="anthropic").ok
    # OpenAI and Mistral accept "" next to tool calls.
    assert validate(with_call(""), target="chat_completions").ok
    assert validate(with_call(""), target="mistral").ok


def test_anthropic_tool_use_only_turn_is_fine() -> None:
    # An assistant turn with only tool_use blocks is the API's own shape for a tool call:
    # https://docs.anthropic.com/en/docs/build-with-claude/tool-use
    items = [{"role": "user", "content": "go"},
             {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c1", "output": "done"}]
    assert validate(items, target="anthropic").ok


# ---------------------------------------------------------------- Bedrock
def test_bedrock_rejects_blank_text() -> None:
    # "The text field in the ContentBlock object at messages.N.content.0 is blank"
    # https://github.com/OpenHands/OpenHands/issues/5339
    # https://github.com/continuedev/continue/issues/9767
    assert "empty-text" in codes([{"role": "assistant", "content": ""}], "bedrock")
    tool = [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": ""}]
    assert "empty-text" in codes(tool, "bedrock")
    assert validate([{"role": "assistant", "content": "."}], target="bedrock").ok


def test_bedrock_rejects_whitespace_only_so_a_space_placeholder_fails() -> None:
    # Bedrock tightened "non-empty" to "non-whitespace"; a " " placeholder is rejected:
    # https://github.com/NousResearch/hermes-agent/pull/63983
    assert "blank-text" in codes([{"role": "user", "content": " "}], "bedrock")
    with pytest.raises(ValueError, match="rejects the placeholder"):
        sanitize([{"role": "user", "content": ""}], target="bedrock", placeholder=" ")
    assert validate([{"role": "user", "content": "a b"}], target="bedrock").ok


# ---------------------------------------------------------------- Gemini
def test_gemini_rejects_empty_text_part() -> None:
    # "Unable to submit request because it has an empty text parameter"
    # https://github.com/google-gemini/deprecated-generative-ai-js/issues/361
    assert "empty-text" in codes([{"role": "user", "content": ""}], "gemini")
    # Whitespace is not reported for Gemini, only the empty string.
    assert validate([{"role": "user", "content": " "}], target="gemini").ok


def test_gemini_needs_a_non_system_message() -> None:
    # Empty `contents`: "contents is not specified"
    # https://github.com/NousResearch/hermes-agent/issues/57940 (system-only requests)
    report = validate([{"role": "system", "content": "be nice"}], target="gemini")
    assert [(p.code, p.severity) for p in report.problems] == [("no-messages", "error")]
    both = [{"role": "system", "content": "be nice"}, {"role": "user", "content": "hi"}]
    assert validate(both, target="gemini").problems == []
    # Chat Completions takes a system message alone; the other native APIs do not.
    assert validate([{"role": "system", "content": "x"}], target="chat_completions").ok
    assert [p.code for p in validate([{"role": "system", "content": "x"}],
                                     target="anthropic").errors] == ["no-messages"]


# ---------------------------------------------------------------- Mistral
def test_mistral_rejects_assistant_without_content_or_tool_calls() -> None:
    # "Assistant message must have either content or tool_calls, but not none."
    # https://github.com/OpenHands/OpenHands/issues/8685
    # https://github.com/solbrowse/extension/issues/16
    assert "empty-text" in codes([{"role": "assistant", "content": ""}], "mistral")
    # A user "" and an assistant with tool calls are not affected.
    assert validate([{"role": "user", "content": ""}], target="mistral").ok
    assert validate(with_call(""), target="mistral").ok
    assert validate([{"role": "assistant", "content": "ok"}], target="mistral").ok


# ---------------------------------------------------------------- sanitize
def test_sanitize_empty_content_next_to_tool_calls_becomes_none() -> None:
    # https://github.com/NousResearch/hermes-agent/issues/11906: "" next to tool calls is sent
    # as an empty text block by a proxy; None is the OpenAI-standard form.
    messages = [{"role": "assistant", "content": "", "tool_calls": [CALL]}]
    fixed = sanitize(messages, target="anthropic")
    assert fixed[0]["content"] is None
    assert fixed[0]["tool_calls"] == [CALL]
    assert messages[0]["content"] == ""  # the input is untouched


@pytest.mark.parametrize("provider", ["anthropic", "bedrock"])
def test_sanitize_whitespace_with_tool_calls_becomes_none(provider: str) -> None:
    messages = [{"role": "assistant", "content": " \n", "tool_calls": [CALL]}]
    assert sanitize(messages, target=provider)[0]["content"] is None


def test_sanitize_other_roles_get_a_placeholder() -> None:
    messages = [{"role": "user", "content": ""}, {"role": "tool", "tool_call_id": "c1",
                                                  "content": "  "}]
    assert [m["content"] for m in sanitize(messages, target="anthropic")] == [".", "."]
    custom = sanitize(messages, target="anthropic", placeholder="(no content)")
    assert [m["content"] for m in custom] == ["(no content)", "(no content)"]
    # Gemini keeps whitespace; only "" is replaced.
    assert [m["content"] for m in sanitize(messages, target="gemini")] == [".", "  "]


def test_sanitize_filters_empty_text_blocks_in_lists() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": ""},
                                     {"type": "text", "text": "keep"},
                                     {"type": "image_url", "image_url": {"url": "u"}}]},
        {"role": "user", "content": [{"type": "text", "text": " "}]},
        {"role": "assistant", "content": [{"type": "text", "text": ""}], "tool_calls": [CALL]},
    ]
    fixed = sanitize(messages, target="anthropic")
    assert fixed[0]["content"] == [{"type": "text", "text": "keep"},
                                   {"type": "image_url", "image_url": {"url": "u"}}]
    # Nothing left: one part of the same type keeps the placeholder (restore_empty undoes it).
    assert fixed[1]["content"] == [{"type": "text", "text": "."}]
    assert fixed[2]["content"] is None
    assert messages[0]["content"][0] == {"type": "text", "text": ""}


def test_sanitize_null_content_without_tool_calls() -> None:
    messages = [{"role": "user", "content": None}, {"role": "assistant", "content": None}]
    # OpenAI accepts "", so "" is enough; Anthropic needs text.
    assert [m["content"] for m in sanitize(messages, target="chat_completions")] == ["", ""]
    assert [m["content"] for m in sanitize(messages, target="anthropic")] == [".", "."]
    # Mistral only minds the assistant.
    assert [m["content"] for m in sanitize(messages, target="mistral")] == ["", "."]


def test_sanitize_leaves_what_the_provider_accepts() -> None:
    messages = [{"role": "user", "content": ""},
                {"role": "assistant", "content": "", "tool_calls": [CALL]}]
    assert sanitize(messages, target="chat_completions") is messages
    assert sanitize(messages, target="mistral")[1]["content"] == ""


@pytest.mark.parametrize("provider", TARGETS)
def test_sanitize_zero_copy_when_nothing_to_fix(provider: str) -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    snapshot = copy.deepcopy(messages)
    assert sanitize(messages, target=provider) is messages
    assert messages == snapshot


def test_sanitize_copies_only_what_it_changes() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
                {"role": "user", "content": "again"}]
    snapshot = copy.deepcopy(messages)
    fixed = sanitize(messages, target="anthropic")
    assert fixed is not messages
    assert messages == snapshot
    assert fixed[0] is messages[0] and fixed[2] is messages[2]
    assert fixed[1] is not messages[1] and fixed[1] == {"role": "assistant", "content": "."}


def test_sanitize_provider_keyword_is_deprecated() -> None:
    messages = [{"role": "user", "content": ""}]
    with pytest.warns(DeprecationWarning, match="use target="):
        old = sanitize(messages, provider="anthropic")
    assert old == sanitize(messages, target="anthropic") == [{"role": "user", "content": "."}]
    with pytest.raises(TypeError, match="not both"):
        sanitize(messages, target="anthropic", provider="anthropic")
    with pytest.raises(TypeError, match="target"):
        sanitize(messages)

