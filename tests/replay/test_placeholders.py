"""``restore_empty``: known empty-turn placeholders back to empty turns, leaks reported.

``replayable`` and ``sanitize`` write a placeholder into an empty turn the
target rejects; ``restore_empty`` undoes it, so placeholders do not pile up
from hop to hop. Each foreign placeholder in the registry is restored too.
"""

from __future__ import annotations

import copy
import importlib
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handoff_codec.replay import (
    PLACEHOLDERS,
    TARGETS,
    RestoreEmptyReport,
    replayable,
    restore_empty,
    restore_empty_report,
    sanitize,
)
from tests.support.profiles import examples

KNOWN = {placeholder.text for placeholder in PLACEHOLDERS}
LEAK = "(empty) again risk. Need progress + tool. Already can. Use execute."


def test_registry_has_a_public_source_for_each() -> None:
    tools = {placeholder.tool for placeholder in PLACEHOLDERS}
    assert {"LiteLLM", "Hermes Agent", "AutoGen", "handoff-codec"} <= tools
    assert {"[System: Empty message content sanitised to satisfy protocol]", "(empty)",
            "(no output)", "(empty message)", " ", "."} <= KNOWN
    assert len(KNOWN) == len(PLACEHOLDERS)
    for placeholder in PLACEHOLDERS:
        assert placeholder.source.startswith("https://github.com/") or \
            placeholder.tool == "handoff-codec"


@pytest.mark.parametrize("placeholder", PLACEHOLDERS, ids=lambda p: repr(p.text))
def test_each_known_placeholder_is_restored(placeholder: Any) -> None:
    text = placeholder.text
    items = [
        {"role": "user", "content": text},
        {"role": "assistant", "content": [{"type": "output_text", "text": text}],
         "type": "message", "id": "m"},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": text},
        {"role": "tool", "tool_call_id": "a", "content": text},
    ]
    report = restore_empty_report(items)
    assert report.items == [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": [{"type": "output_text", "text": ""}],
         "type": "message", "id": "m"},
        items[2],
        {"type": "function_call_output", "call_id": "a", "output": ""},
        {"role": "tool", "tool_call_id": "a", "content": ""},
    ]
    assert [(r.index, r.placeholder) for r in report.restored] == [
        (0, placeholder), (1, placeholder), (3, placeholder), (4, placeholder)]
    assert report.leaks == ()


def test_surrounding_whitespace_still_matches_a_phrase() -> None:
    items = [{"role": "assistant", "content": "\n(empty)  "}, {"role": "user", "content": " . "}]
    assert restore_empty(items) == [{"role": "assistant", "content": ""},
                                    {"role": "user", "content": ""}]


def test_real_text_is_left_alone_and_the_list_is_the_same() -> None:
    items = [{"role": "user", "content": "Done."}, {"role": "user", "content": "..."},
             {"role": "user", "content": "The harness writes (empty) for no text."},
             {"role": "user", "content": "  "}, {"role": "user", "content": ""},
             {"type": "reasoning", "id": "r", "summary": [{"type": "summary_text", "text": "."}]},
             {"role": "user", "content": [{"type": "input_text", "text": "."},
                                          {"type": "input_image", "image_url": "https://x"}]}]
    snapshot = copy.deepcopy(items)
    assert restore_empty(items) is items
    assert items == snapshot
    assert restore_empty_report(items).restored == ()


def test_the_report_is_a_restore_empty_report() -> None:
    report = restore_empty_report([{"role": "user", "content": "."}])
    assert isinstance(report, RestoreEmptyReport)
    assert [restored.index for restored in report.restored] == [0]


@pytest.mark.parametrize("module", ["handoff_codec.replay", "handoff_codec.format.placeholders"])
def test_the_old_name_still_imports_with_a_warning(module: str) -> None:
    imported = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match="RestoreEmptyReport"):
        assert imported.RestoreReport is RestoreEmptyReport
    with pytest.raises(AttributeError, match="Restore_Report"):
        imported.Restore_Report  # noqa: B018


def test_a_leak_is_reported_never_cut() -> None:
    # A model echoes a placeholder in front of its own notes: hermes-agent documents it in
    # agent/agent_runtime_helpers_placeholders.py
    # (https://github.com/NousResearch/hermes-agent/issues/132949).
    litellm = "[System: Empty message content sanitised to satisfy protocol] Next I will"
    items = [{"role": "assistant", "content": LEAK}, {"role": "assistant", "content": litellm},
             {"role": "assistant", "content": ". Next I will"}]
    report = restore_empty_report(items)
    assert report.items is items
    assert [(leak.index, leak.placeholder.text) for leak in report.leaks] == [
        (0, "(empty)"), (1, "[System: Empty message content sanitised to satisfy protocol]")]
    assert report.leaks[0].text == LEAK


def test_extra_placeholders() -> None:
    items = [{"role": "user", "content": ""}]
    written = replayable(items, target="anthropic", placeholder="(blank)")
    assert written == [{"role": "user", "content": "(blank)"}]
    assert restore_empty(written) is written
    assert restore_empty(written, extra=["(blank)"]) == items


# ---------------------------------------------------------------- round trips
REAL_TEXTS = st.sampled_from(["hi", "line1\nline2", "  padded  ", "é ☃", "Done.", "(empty) x"])
EMPTY = st.sampled_from(["", [{"type": "input_text", "text": ""}]])


@st.composite
def empty_fixable(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Items whose only problem for any target is empty content."""
    items: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["message", "output", "tool"]))
        if kind == "message":
            role = draw(st.sampled_from(["user", "assistant", "system", "developer"]))
            items.append({"role": role, "content": draw(st.one_of(REAL_TEXTS, EMPTY))})
        elif kind == "output":
            text = draw(st.one_of(REAL_TEXTS, st.just("")))
            items.append({"type": "message", "role": "assistant", "id": "m",
                          "content": [{"type": "output_text", "text": text}]})
        else:
            call_id = f"c{len(items)}"
            items.append({"type": "function_call", "call_id": call_id, "name": "f",
                          "arguments": "{}"})
            items.append({"type": "function_call_output", "call_id": call_id,
                          "output": draw(st.one_of(REAL_TEXTS, st.just("")))})
    return items


@examples(300)
@given(empty_fixable(), st.sampled_from(TARGETS))
def test_restore_empty_undoes_replayable(items: list[dict[str, Any]], target: str) -> None:
    fixed = replayable(items, target=target)
    assert restore_empty(fixed) == items


@examples(200)
@given(st.lists(st.builds(lambda role, text: {"role": role, "content": text},
                          st.sampled_from(["user", "assistant", "system", "tool"]),
                          st.one_of(REAL_TEXTS, st.just("")))),
       st.sampled_from(TARGETS))
def test_restore_empty_undoes_sanitize(messages: list[dict[str, Any]], target: str) -> None:
    assert restore_empty(sanitize(messages, target=target)) == messages


def test_the_empty_turn_is_actually_fixed_for_every_target() -> None:
    # Not a vacuous round trip: the rejecting targets do change the items.
    items = [{"role": "user", "content": ""}, {"role": "assistant", "content": "ok"}]
    changed = {target for target in TARGETS if replayable(items, target=target) != items}
    assert changed == {"anthropic", "bedrock", "gemini"}
    assert replayable(items, target="anthropic")[0]["content"] == "."


def test_restore_empty_is_light() -> None:
    code = ("import sys\nfrom handoff_codec.replay import restore_empty\n"
            "restore_empty([{'role': 'user', 'content': '(empty)'}])\n"
            "print(sorted(m for m in ('pydantic', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_flatten_restore_empty_stops_placeholders_piling_up_across_hops() -> None:
    import handoff_codec

    items = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
             {"role": "user", "content": "(empty) is what the tool printed"}]
    hop = handoff_codec.replay.replayable(items, target="anthropic")
    assert hop != items  # the empty assistant turn got a placeholder
    transcript = [handoff_codec.format.summarize(hop)]
    assert handoff_codec.flatten(transcript) == hop  # without it, the placeholder stays
    assert handoff_codec.flatten(transcript, restore_empty=True) == items
    report = handoff_codec.format.default_codec.flatten_report(transcript, restore_empty=True)
    assert [r.index for r in report.placeholders.restored] == [1]
    assert [leak.index for leak in report.placeholders.leaks] == [2]  # reported, not cut
