"""An assistant message with output_text (or refusal) parts is an output message: without its
``id`` (or its ``type``) the problem named is what is missing, not the part type."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_codec.replay import PROVIDERS, TARGETS, ReplayError, to_provider, validate

PARTS = [[{"type": "output_text", "text": "ok", "annotations": []}],
         [{"type": "refusal", "refusal": "no"}]]
USER = {"role": "user", "content": "hi"}


@pytest.mark.parametrize("parts", PARTS)
@pytest.mark.parametrize(("item", "missing"), [
    ({"type": "message", "role": "assistant"}, "it needs an 'id'"),
    ({"role": "assistant"}, "it needs 'type': 'message' and an 'id'")])
@pytest.mark.parametrize("target", TARGETS)
def test_validate_names_the_missing_id(target: str, item: dict[str, Any], missing: str,
                                      parts: list[Any]) -> None:
    problems = validate([USER, {**item, "content": parts}], target=target).errors
    assert [(p.index, p.code) for p in problems] == [(1, "missing-field")]
    assert "output message" in problems[0].message and missing in problems[0].message
    assert "unsupported content part type" not in problems[0].message


@pytest.mark.parametrize("target", PROVIDERS)
def test_replay_names_the_missing_id(target: str) -> None:
    item = {"type": "message", "role": "assistant", "content": PARTS[0]}
    with pytest.raises(ReplayError, match=r"^item 1: .*output message: it needs an 'id'$"):
        to_provider([USER, item], target)
    assert to_provider([USER, {**item, "id": "msg_1"}], target).messages
