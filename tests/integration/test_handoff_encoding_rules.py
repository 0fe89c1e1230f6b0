"""The integrations follow dumps' rules for surrogates and keys, and never raise.

A lone surrogate is written as an escape in a JSON record, so the summary is
UTF-8 a session store can hold; a key that is not a string is written as JSON
spells it, with a ``stringified`` fallback, as the Agents SDK's writer does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

agents = pytest.importorskip("agents")

from agents.handoffs import HandoffInputData  # noqa: E402

import handoff_codec  # noqa: E402
from handoff_codec.agents import (  # noqa: E402
    FallbackKind,
    HandoffReport,
    make_history_mapper,
    nest_input_filter,
)

Item = dict[str, Any]
Nest = Callable[[list[Item]], list[Item]]


def _via_mapper(reports: list[HandoffReport]) -> Nest:
    mapper = make_history_mapper(on_report=reports.append)
    return lambda items: [dict(i) for i in mapper(items)]  # type: ignore[arg-type]


def _via_filter(reports: list[HandoffReport]) -> Nest:
    nest = nest_input_filter(on_report=reports.append)

    def run(items: list[Item]) -> list[Item]:
        data = HandoffInputData(input_history=tuple(items), pre_handoff_items=(), new_items=())
        return [dict(i) for i in nest(data).input_history]  # type: ignore[arg-type]

    return run


@pytest.fixture(params=["mapper", "filter"])
def integration(request: pytest.FixtureRequest) -> Callable[[list[HandoffReport]], Nest]:
    return {"mapper": _via_mapper, "filter": _via_filter}[request.param]


def test_a_lone_surrogate_gives_a_storable_summary_that_reads_back(
    integration: Callable[[list[HandoffReport]], Nest],
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": "a\ud800b"},
             {"type": "function_call_output", "call_id": "c1", "output": "\udc80"},
             {"role": "assistant", "content": "ok"}]
    out = integration(reports)(items)
    (summary,) = out
    summary["content"].encode("utf-8")  # a TEXT column, a file or an HTTP body takes it
    assert handoff_codec.loads(summary["content"]) == items
    assert reports == [HandoffReport(3, ())]


def test_a_key_that_is_not_a_string_is_stringified_and_reported(
    integration: Callable[[list[HandoffReport]], Nest],
) -> None:
    reports: list[HandoffReport] = []
    items = [{"role": "user", "content": "a", "meta": {2: "x", True: "y", None: "z"}}]
    (summary,) = integration(reports)(items)
    assert handoff_codec.loads(summary["content"]) == [
        {"role": "user", "content": "a", "meta": {"2": "x", "true": "y", "null": "z"}}]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.STRINGIFIED, 0)]


def test_a_surrogate_pair_as_two_code_points_is_forwarded_and_reported(
    integration: Callable[[list[HandoffReport]], Nest],
) -> None:
    reports: list[HandoffReport] = []
    pair = {"role": "user", "content": "a\ud83d\ude00"}
    out = integration(reports)([{"role": "user", "content": "hi"}, pair])
    assert out[1:] == [pair]  # dumps would raise; the handoff goes on
    assert handoff_codec.loads(out[0]["content"]) == [{"role": "user", "content": "hi"}]
    (report,) = reports
    assert [(f.kind, f.index) for f in report.fallbacks] == [(FallbackKind.FORWARDED, 1)]
