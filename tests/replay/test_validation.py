"""``validate``: openai's schema plus Chat Completions' semantic rules; ``replayable``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import handoff_codec
from handoff_codec.replay import TARGETS, Problem, ValidationReport, replayable, validate
from tests.support.turns import turnless

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
KNOWN_ROLES = {"user", "assistant", "system", "developer"}


def call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"}


def output(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def errors(items: list[Any], target: str = "chat_completions") -> list[tuple[int | None, str]]:
    return [(p.index, p.code) for p in validate(items, target=target).errors]


# ---------------------------------------------------------------- the report
def test_report_is_a_pydantic_model() -> None:
    report = validate([{"role": "user", "content": "hi"}, {"role": "user", "content": []}])
    assert isinstance(report, ValidationReport)
    assert report.ok is False
    assert report.messages == [{"role": "user", "content": "hi"},
                               {"role": "user", "content": []}]
    assert report.problems == [Problem(index=1, code="empty-content-list", severity="error",
                                       message="user content is an empty list")]
    dumped = report.model_dump(mode="json")
    assert dumped["problems"][0] == {"index": 1, "code": "empty-content-list",
                                     "message": "user content is an empty list",
                                     "severity": "error"}
    assert dumped["ok"] is False
    assert ValidationReport.model_validate(dumped) == report
    assert validate("hello").messages == [{"role": "user", "content": "hello"}]


def test_clean_items_give_an_ok_report_with_the_messages() -> None:
    items = [{"role": "user", "content": "q"}, call("a"), output("a"),
             {"role": "assistant", "content": "a"}]
    report = validate(items)
    assert report.ok and report.problems == []
    assert [m["role"] for m in report.messages] == ["user", "assistant", "tool", "assistant"]


def test_unconvertible_items_are_all_reported() -> None:
    items = [{"role": "user", "content": None}, {"role": "user", "content": "fine"},
             {"type": "compaction", "id": "x"}, {"role": "user", "name": "b c", "content": "x"}]
    assert errors(items) == [(0, "null-content"), (2, "unsupported-item"), (3, "name-key")]
    assert validate(items).messages == []


# ---------------------------------------------------------------- schema (TypeAdapter)
def test_messages_are_checked_against_openai_param_types() -> None:
    # The SDK copies detail=None through; openai's ImageURL.detail is a Literal.
    items = [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x",
                                           "detail": None}]}]
    report = validate(items)
    assert [(p.index, p.code) for p in report.errors] == [(0, "schema")]
    assert "detail" in report.errors[0].message
    good = [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x",
                                          "detail": "low"}]}]
    assert validate(good).ok


def test_schema_checks_lazy_iterables_too() -> None:
    # openai types content as an Iterable, which pydantic validates lazily: a bad
    # part after a good one must still be found.
    text = {"type": "input_text", "text": "look"}
    image = {"type": "input_image", "image_url": "https://x", "detail": "huge"}
    report = validate([{"role": "user", "content": [text, text, image]}])
    assert [(p.index, p.code) for p in report.errors] == [(0, "schema")]
    assert "detail" in report.errors[0].message
    assert validate([{"role": "user", "content": [text, {**image, "detail": "high"}]}]).ok


# ---------------------------------------------------------------- semantic rules
def test_every_tool_message_answers_an_earlier_call() -> None:
    assert errors([output("a"), call("a")]) == [(0, "orphan-tool-output"),
                                                 (1, "unanswered-tool-call")]
    assert errors([call("a"), output("a")]) == []
    assert errors([call("a"), output("b")]) == [(0, "unanswered-tool-call"),
                                                 (1, "orphan-tool-output")]


def test_every_call_is_answered() -> None:
    items = [call("a"), call("b"), output("a")]
    assert errors(items) == [(1, "unanswered-tool-call")]
    assert errors([*items, output("b")]) == []


def test_null_content_only_on_assistant_with_tool_calls() -> None:
    no_text = {"type": "message", "role": "assistant", "id": "m", "content": []}
    assert errors([no_text]) == [(0, "null-content")]
    # The same message followed by a call merges into one with tool_calls: fine.
    assert errors([no_text, call("a"), output("a")]) == []
    # Refusal without content is still reported: content is required unless tool_calls.
    refusal = {"type": "message", "role": "assistant", "id": "m",
               "content": [{"type": "refusal", "refusal": "no"}]}
    assert errors([refusal]) == [(0, "null-content")]


def test_no_empty_content_list() -> None:
    for role in ("user", "system", "developer", "assistant"):
        assert errors([{"role": role, "content": []}]) == [(0, "empty-content-list")], role
    assert errors([{"role": "user", "content": [{"type": "input_text", "text": "x"}]}]) == []


def test_name_key_on_input_message() -> None:
    named = [{"role": "assistant", "name": "bot", "content": "x"}]
    assert errors(named, "anthropic") == [(0, "name-key")]
    assert validate(named).ok  # Chat Completions takes this name
    assert errors([{"role": "assistant", "name": "a bot", "content": "x"}]) == [(0, "name-key")]
    # On a `type: message` item the converter accepts the name (and ignores it).
    typed = {"type": "message", "role": "user", "name": "bob", "content": "x", "id": "1"}
    assert validate([typed]).ok


def test_an_empty_transcript_is_an_error() -> None:
    # Every provider refuses a request with no message.
    report = validate([])
    assert [(p.code, p.severity) for p in report.problems] == [("no-messages", "error")]


def test_validate_does_not_modify_items() -> None:
    items = [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}, call("a"),
             output("a", "")]
    snapshot = copy.deepcopy(items)
    for target in TARGETS:
        validate(items, target=target)
    assert items == snapshot


# ---------------------------------------------------------------- replayable
def test_replayable_returns_the_same_list_when_nothing_to_fix() -> None:
    items = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}, call("a"),
             output("a"), {"type": "message", "role": "assistant", "id": "m",
                           "content": [{"type": "output_text", "text": "a"}]},
             {"type": "reasoning", "id": "r", "summary": []}]
    snapshot = copy.deepcopy(items)
    for target in TARGETS:
        assert replayable(items, target=target) is items
        assert replayable(items, target=target, names="inline") is items
    assert items == snapshot


def test_replayable_drops_a_rejected_name() -> None:
    items = [{"role": "user", "name": "bob", "content": "hi"},
             {"type": "message", "role": "user", "name": "amy", "content": "yo", "id": "1"}]
    fixed = replayable(items)
    assert fixed[0] == {"role": "user", "content": "hi"}
    assert fixed[1] is items[1]  # the converter accepts this name: left alone
    assert "name" in items[0]
    assert validate(fixed, target="anthropic").ok and not validate(items, target="anthropic").ok


def test_replayable_inlines_names() -> None:
    items = [{"role": "user", "name": "bob", "content": "hi"},
             {"role": "assistant", "name": "bot", "content": None},
             {"role": "user", "name": "amy", "content": [{"type": "input_text", "text": "x"}]},
             {"type": "message", "role": "user", "name": "cy", "content": "yo", "id": "1"},
             {"role": "user", "name": "", "content": "anon"}]
    fixed = replayable(items, names="inline")
    assert fixed == [
        {"role": "user", "content": "[bob] hi"},
        {"role": "assistant", "content": "[bot] "},
        {"role": "user", "content": [{"type": "input_text", "text": "[amy] x"}]},
        {"type": "message", "role": "user", "content": "[cy] yo", "id": "1"},
        {"role": "user", "content": "anon"},
    ]
    assert validate(fixed, target="anthropic").ok


def test_replayable_none_content_becomes_empty_string_where_accepted() -> None:
    items = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None},
             {"role": "assistant"}]
    fixed = replayable(items)
    assert fixed[1:] == [{"role": "assistant", "content": ""},
                         {"role": "assistant", "content": ""}]
    assert fixed[0] is items[0]
    assert validate(fixed).ok and not validate(items).ok
    # Anthropic rejects "" too, so it gets the placeholder.
    assert replayable(items, target="anthropic")[1]["content"] == "."
    assert replayable(items, target="anthropic", placeholder="…")[1]["content"] == "…"


def test_replayable_fixes_empty_text_per_target() -> None:
    items = [{"role": "user", "content": ""}, {"role": "assistant", "content": " "},
             call("a"), output("a", ""),
             {"type": "message", "role": "assistant", "id": "m",
              "content": [{"type": "output_text", "text": ""}]}]
    assert replayable(items) is items
    expected_contents = {
        "anthropic": [".", ".", None, ".", [{"type": "output_text", "text": "."}]],
        "bedrock": [".", ".", None, ".", [{"type": "output_text", "text": "."}]],
        "gemini": [".", " ", None, ".", [{"type": "output_text", "text": "."}]],
        "mistral": ["", " ", None, "", [{"type": "output_text", "text": "."}]],
    }
    for target, contents in expected_contents.items():
        fixed = replayable(items, target=target)
        got = [item.get("content", item.get("output")) for item in fixed]
        assert got[:2] == contents[:2], target
        assert got[3:] == contents[3:], target
        assert fixed[2] is items[2]
        assert validate(fixed, target=target).ok, target
        assert not validate(items, target=target).ok, target


def test_replayable_empty_lists() -> None:
    items = [{"role": "user", "content": []},
             {"type": "message", "role": "assistant", "id": "m", "content": []}]
    fixed = replayable(items)
    assert fixed == [{"role": "user", "content": ""},
                     {"type": "message", "role": "assistant", "id": "m",
                      "content": [{"type": "output_text", "text": ""}]}]
    assert validate(fixed).ok and not validate(items).ok


def test_replayable_never_adds_drops_or_reorders() -> None:
    items = [{"type": "reasoning", "id": "r", "summary": []}, call("a"),
             {"role": "user", "content": None}, {"type": "compaction", "id": "c"}]
    for target in TARGETS:
        fixed = replayable(items, target=target)
        assert len(fixed) == len(items)
        assert [i.get("type") for i in fixed] == [i.get("type") for i in items]
        assert fixed[0] is items[0] and fixed[1] is items[1] and fixed[3] is items[3]
        # What it cannot fix is left for validate to report.
        assert {p.code for p in validate(fixed, target=target).errors} == {
            "unsupported-item", "unanswered-tool-call"}


def test_replayable_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="names must be"):
        replayable([], names="keep")
    with pytest.raises(ValueError, match="unknown target"):
        replayable([], target="openai")
    with pytest.raises(ValueError, match="rejects the placeholder"):
        replayable([], target="anthropic", placeholder="")


# ---------------------------------------------------------------- acceptance 2
def _decoded_rows() -> list[Any]:
    """One param per decodable row of legacy_summaries.jsonl: (items,)."""
    path = FIXTURES / "legacy_summaries.jsonl"
    if not path.exists():
        return [pytest.param([], id="no-fixtures", marks=pytest.mark.skip(
            reason="tests/fixtures/legacy_summaries.jsonl is not generated yet"))]
    params = []
    for line in path.read_text("utf-8").splitlines():
        row = json.loads(line)
        items = handoff_codec.loads(row["summary"]["content"])
        params.append(pytest.param(items, id=f"{row['version']}/{row['case']}/{row['kind']}"))
    return params


@pytest.mark.parametrize("items", _decoded_rows())
def test_decoded_legacy_fixture_replays_to_every_target(items: list[dict[str, Any]]) -> None:
    for target in TARGETS:
        fixed = replayable(items, target=target)
        report = validate(fixed, target=target)
        # replayable never edits text: a final assistant text ending in whitespace is
        # to_provider's repair (Anthropic), reported here.
        errors = [p for p in report.errors if p.code != "trailing-whitespace"]
        assert (not errors) != turnless(fixed, target), (target, report.errors)
        assert len(fixed) == len(items)
        assert [i.get("role") for i in fixed] == [i.get("role") for i in items]
        assert [i.get("type") for i in fixed] == [i.get("type") for i in items]


def test_replayable_on_original_transcripts() -> None:
    data = json.loads((FIXTURES / "legacy_transcripts.json").read_text("utf-8"))
    for name, items in data.items():
        for target in TARGETS:
            fixed = replayable(items, target=target)
            errors = [p for p in validate(fixed, target=target).errors
                      if p.code != "trailing-whitespace"]  # to_provider's repair
            assert (not errors) != turnless(fixed, target), (name, target)
            assert [i.get("role") for i in fixed] == [i.get("role") for i in items]


# ---------------------------------------------------------------- every problem at once
@pytest.mark.parametrize("target", ["anthropic", "bedrock", "gemini"])
def test_every_problem_is_reported_in_one_pass(target: str) -> None:
    # Null content and a name key once stopped the report before the messages were checked.
    items = [{"role": "user", "content": "hi"},
             {"role": "assistant", "name": "bot", "content": "x"},  # name key
             {"role": "user", "content": None},  # null content
             {"role": "assistant", "content": ""},  # empty text
             call("a")]  # unanswered tool call
    found = errors(items, target)
    assert (1, "name-key") in found and (2, "null-content") in found
    assert (3, "empty-text") in found and (4, "unanswered-tool-call") in found
    # Once fixed, each problem is gone, and nothing new appears.
    fixed = [items[0], {"role": "assistant", "content": "x"}, {"role": "user", "content": "y"},
             {"role": "assistant", "content": "z"}, call("a"), output("a")]
    assert errors(fixed, target) == []
    assert validate(items, target=target).messages == []  # an item failed to convert


def test_a_named_null_turn_reports_both() -> None:
    items = [{"role": "assistant", "name": "bot", "content": None}]
    assert errors(items) == [(0, "null-content")]  # Chat Completions takes the name
    assert errors(items, "mistral") == [(0, "name-key"), (0, "null-content"), (0, "empty-text")]
    assert errors(items, "anthropic") == [(0, "name-key"), (0, "null-content"), (0, "empty-text")]


def test_an_unreadable_call_does_not_make_its_output_an_orphan() -> None:
    broken = {"type": "function_call", "call_id": "a", "name": "f"}  # no arguments
    assert errors([broken, output("a"), {"role": "user", "content": None}]) == [
        (0, "missing-field"), (2, "null-content")]
    assert errors([output("b")]) == [(0, "orphan-tool-output")]
