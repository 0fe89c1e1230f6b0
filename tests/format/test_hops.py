"""Stable across handoffs: nesting again changes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec.format import default_codec
from tests.support import strategies
from tests.support.profiles import examples
from tests.support.strategies import transcripts


@examples(500)
@given(
    transcripts.filter(lambda items: not any(map(default_codec.is_summary, items)))
)
def test_flatten_undoes_nest(items: list[dict[str, Any]]) -> None:
    assert handoff_codec.flatten(handoff_codec.nest(items)) == items


summaries = transcripts.map(handoff_codec.format.summarize)
# A summary whose transcript holds a summary: the SDK's reading of these
# changes on every hop when the inner content is a JSON object.
nested_summaries = st.lists(summaries, min_size=1, max_size=2).map(handoff_codec.format.summarize)


@examples(300)
@given(st.lists(st.one_of(summaries, nested_summaries, strategies.items), max_size=5))
def test_five_hops_change_nothing(items: list[dict[str, Any]]) -> None:
    first = handoff_codec.nest(items)
    hop = first
    for _ in range(5):
        hop = handoff_codec.nest(hop)
        assert hop == first


def test_flatten_keeps_other_items_and_copies_them() -> None:
    user = {"role": "user", "content": "hi", "extra": [1]}
    lookalike = {
        "role": "user",
        "content": handoff_codec.dumps([{"role": "system", "content": "x"}]),
    }
    quoted = {"role": "assistant", "content": "see: " + handoff_codec.dumps([])}
    flat = handoff_codec.flatten([user, lookalike, quoted])
    assert flat == [user, lookalike, quoted]
    assert flat[0] is not user and flat[0]["extra"] is not user["extra"]


def test_an_unreadable_summary_is_kept_as_it_is() -> None:
    broken = handoff_codec.format.summarize([{"role": "user", "content": "x"}])
    broken["content"] = broken["content"].replace("1. user: x", "prose before any record")
    assert handoff_codec.flatten([broken]) == [broken]
