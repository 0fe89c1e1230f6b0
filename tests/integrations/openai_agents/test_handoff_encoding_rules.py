"""The integrations follow dumps' rules for surrogates and keys, and never raise.

A lone surrogate is written as an escape in a JSON record, so the summary is
UTF-8 a session store can hold; a key that is not a string is written as JSON
spells it, with a ``stringified`` fallback, as the Agents SDK's writer does.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

agents = pytest.importorskip("agents")

import handoff_codec  # noqa: E402
from handoff_codec.integrations.openai_agents import FallbackKind, HandoffReport  # noqa: E402
from tests.integrations.openai_agents._handoffs import Nest  # noqa: E402


def test_a_lone_surrogate_gives_a_storable_summary_that_reads_back(
    integration: Callable[..., Nest],
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": "a\ud800b"},
             {"type": "function_call_output", "call_id": "c1", "output": "\udc80"},
             {"role": "assistant", "content": "ok"}]
    out = integration(None, reports)(items)
    (summary,) = out
    summary["content"].encode("utf-8")  # a TEXT column, a file or an HTTP body takes it
    assert handoff_codec.loads(summary["content"]) == items
    assert reports == [HandoffReport(3, ())]


def test_a_key_that_is_not_a_string_is_stringified_and_reported(
    integration: Callable[..., Nest],
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": "a", "meta": {2: "x", True: "y", None: "z"}}]
    (summary,) = integration(None, reports)(items)
    assert handoff_codec.loads(summary["content"]) == [
        {"role": "user", "content": "a", "meta": {"2": "x", "true": "y", "null": "z"}}]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.STRINGIFIED, 0)]


def test_a_surrogate_pair_as_two_code_points_is_forwarded_and_reported(
    integration: Callable[..., Nest],
) -> None:
    reports: list[HandoffReport] = []
    pair = {"role": "user", "content": "a\ud83d\ude00"}
    out = integration(None, reports)([{"role": "user", "content": "hi"}, pair])
    assert out[1:] == [pair]  # dumps would raise; the handoff goes on
    assert handoff_codec.loads(out[0]["content"]) == [{"role": "user", "content": "hi"}]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.FORWARDED, 1)]
