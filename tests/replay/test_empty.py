"""``handoff_codec.replay.empty``: a leaked placeholder, and a silent 0-token turn.

A placeholder written into an empty turn is read by the model as something it said, and a
short phrase there gets echoed back in front of its own notes: hermes-agent documents this
for its ``(empty)`` placeholder (``agent/agent_runtime_helpers_placeholders.py``, issue
https://github.com/NousResearch/hermes-agent/issues/132949). A turn that ends normally with 0
output tokens and nothing visible is a failure upstream (provider, auth, config), not an
answer.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from handoff_codec.replay import empty
from handoff_codec.replay.empty import TurnKind, classify_turn, is_leaked_sentinel, visible_text

LEAK = "(empty) again risk. Need progress + tool. Already can. Use execute."


# ---------------------------------------------------------------- leaked placeholder
@pytest.mark.parametrize("content", [
    LEAK,
    "  " + LEAK,
    [{"type": "thinking", "thinking": "plan..."}, {"type": "text", "text": LEAK}],
    [{"type": "reasoning", "text": "(not visible)"}, {"type": "output_text", "text": LEAK}],
    {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"},
                                      {"type": "text", "text": LEAK}]},
    [{"type": "reasoning_content", "text": "Done."}, LEAK],
    "<think>hidden</think>" + LEAK,
], ids=["str", "leading-space", "thinking-block-first", "reasoning-block-first",
        "message-mapping", "reasoning_content-block", "think-tags"])
def test_leak_is_detected(content: Any) -> None:
    assert is_leaked_sentinel(content)


@pytest.mark.parametrize("content", [
    "Done.", "PASS", "OK", "42",
    "## Result\n\n- all **3** checks passed\n- see `report.md`",
    "The harness writes `(empty)` when a turn has no text.",
    "Note: (empty) is the sentinel, not an answer.",
    "(empty)",  # the bare marker is the empty terminal, not a leak
    "(empty)   \n",
    "",
    [{"type": "thinking", "thinking": LEAK}, {"type": "text", "text": "Done."}],
    [{"type": "reasoning_content", "text": LEAK}],
], ids=["done", "pass", "ok", "42", "markdown", "mention-backticks", "mention-mid",
        "bare", "bare-space", "empty", "leak-only-in-thinking", "leak-only-in-reasoning"])
def test_real_answers_are_not_leaks(content: Any) -> None:
    assert not is_leaked_sentinel(content)


def test_other_sentinels() -> None:
    assert is_leaked_sentinel("[System: empty] notes", sentinel="[System: empty]")
    assert not is_leaked_sentinel(LEAK, sentinel="[System: empty]")
    assert not is_leaked_sentinel(LEAK, sentinel="")


def test_visible_text_drops_hidden_parts() -> None:
    blocks = [{"type": "thinking", "thinking": "a"}, {"type": "text", "text": "b"},
              {"type": "redacted_thinking", "data": "c"}, {"type": "reasoning", "text": "d"},
              {"type": "reasoning_content", "text": "e"}, {"type": "output_text", "text": "f"},
              {"type": "refusal", "refusal": "g"}, {"type": "image_url", "image_url": {}}]
    assert visible_text(blocks) == "bfg"
    assert visible_text({"content": blocks, "reasoning_content": "x"}) == "bfg"
    assert visible_text("a<thinking>x\ny</thinking>b") == "ab"
    assert visible_text("plain") == "plain"


@pytest.mark.parametrize("content", [None, 42, 3.5, b"bytes", object(),
                                     [None, 1, {"text": 5}], {"type": "text"}])
def test_visible_text_never_raises(content: Any) -> None:
    assert visible_text(content) == ""
    assert is_leaked_sentinel(content) is False


def test_visible_text_survives_cycles() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert visible_text(loop) == ""
    mapping: dict[str, Any] = {}
    mapping["content"] = mapping
    assert visible_text(mapping) == ""


# ---------------------------------------------------------------- silent 0-token turn
@pytest.mark.parametrize(("kwargs", "expected"), [
    # 1. end_turn + outputTokens=0 + empty body: a silent failure.
    ({"stop_reason": "end_turn", "body": "",
      "usage": {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}},
     TurnKind.SILENT_FAILURE),
    # 2. end_turn + outputTokens>0 + empty body: thought-only.
    ({"stop_reason": "end_turn", "body": "", "usage": {"outputTokens": 57}},
     TurnKind.THOUGHT_ONLY),
    # 3. usage absent + empty body: never a failure.
    ({"stop_reason": "end_turn", "body": "", "usage": None}, TurnKind.THOUGHT_ONLY),
    # 4. end_turn + outputTokens=0 + inputTokens>0 + empty body: still a silent failure.
    ({"stop_reason": "end_turn", "body": [],
      "usage": {"inputTokens": 1234, "outputTokens": 0}}, TurnKind.SILENT_FAILURE),
    # 5. a JSON-RPC error wins, even over a silent-failure shape or a body.
    ({"stop_reason": "end_turn", "body": "", "usage": {"outputTokens": 0},
      "error": {"code": -32603, "message": "boom"}}, TurnKind.ERROR),
    # 6. a normal non-empty turn is untouched.
    ({"stop_reason": "end_turn", "body": "Done.", "usage": {"outputTokens": 0}},
     TurnKind.OK),
], ids=["silent", "tokens", "no-usage", "input-tokens", "error", "normal"])
def test_turn_classification_matrix(kwargs: dict[str, Any], expected: TurnKind) -> None:
    assert classify_turn(**kwargs) is expected


def test_error_wins_over_a_body() -> None:
    assert classify_turn(stop_reason="end_turn", usage=None, body="partial",
                         error="agent crashed") is TurnKind.ERROR


def test_snake_case_usage() -> None:
    for usage in ({"output_tokens": 0}, {"completion_tokens": 0},
                  SimpleNamespace(completion_tokens=0, prompt_tokens=9)):
        assert classify_turn(stop_reason="end_turn", usage=usage, body="") \
            is TurnKind.SILENT_FAILURE
        assert classify_turn(stop_reason="stop", usage=usage, body="") \
            is TurnKind.SILENT_FAILURE
    absent: list[Any] = [{"output_tokens": 3}, {"completion_tokens": 3},
                         {"outputTokens": None}, {"outputTokens": "0"}, {"outputTokens": False}, {}]
    for usage in absent:
        assert classify_turn(stop_reason="end_turn", usage=usage, body="") \
            is TurnKind.THOUGHT_ONLY


def test_only_a_normal_end_is_a_silent_failure() -> None:
    for stop in ("max_tokens", "cancelled", "refusal", None):
        assert classify_turn(stop_reason=stop, usage={"outputTokens": 0}, body="") \
            is TurnKind.THOUGHT_ONLY


def test_thinking_only_body_is_empty() -> None:
    body = [{"type": "thinking", "thinking": "long thoughts"}]
    assert classify_turn(stop_reason="end_turn", usage={"outputTokens": 0}, body=body) \
        is TurnKind.SILENT_FAILURE
    assert classify_turn(stop_reason="end_turn", usage={"outputTokens": 80}, body=body) \
        is TurnKind.THOUGHT_ONLY


def test_turn_kind_values() -> None:
    assert [k.value for k in TurnKind] == ["error", "silent_failure", "thought_only", "ok"]
    assert TurnKind("ok") is TurnKind.OK


def test_module_is_light() -> None:
    code = ("import sys, handoff_codec.replay\n"
            "assert handoff_codec.replay.empty.visible_text('x') == 'x'\n"
            "from handoff_codec.replay import empty\n"
            "import handoff_codec.replay.empty as again\n"
            "assert handoff_codec.replay.empty is empty is again\n"
            "print(sorted(m for m in ('pydantic', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
    assert empty.SENTINEL == "(empty)"
