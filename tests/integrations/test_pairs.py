"""Any framework to any other: ``<b>.loads(<a>.dumps(messages))`` over generated conversations.

For each of the 20 ordered pairs of the five integrations, B's native messages
hold what both can hold: turns, names, tool calls with ids and typed arguments,
results, images; parallel calls stay in one model turn, their results after it;
the reports name what B cannot hold (a name where B holds none, an object result
where B holds text).

25 examples a direction (docs/frameworks.md's table was measured with 100);
``PAIR_EXAMPLES=N`` runs N.
"""

from __future__ import annotations

import os
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from openai.types.responses import ResponseInputItemParam

from tests.integrations._pairs import PAIRS, Turn, atoms, conversations, hand, losses, parallel_kept

_EXAMPLES = int(os.environ.get("PAIR_EXAMPLES", "0"))
STRENGTH = settings(max_examples=_EXAMPLES or 25, deadline=None)
RESPONSES_INPUT: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(list[ResponseInputItemParam])


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-to-{b}" for a, b in PAIRS])
@STRENGTH
@given(conversations())
def test_pair(a: str, b: str, turns: list[Turn]) -> None:
    outcome = hand(a, b, turns)
    if b == "openai_agents":  # real Responses API input items
        RESPONSES_INPUT.validate_python(outcome.messages)
    assert atoms(outcome.got) == atoms(outcome.expected)
    assert parallel_kept(outcome.expected, outcome.got)
    reported = {o.field for o in outcome.omitted}
    private = {"google_adk": "event", "pydantic_ai": "message"}.get(a)
    if private is not None:  # the other writer's own key: left out, and said so
        assert private in reported, reported
    for what, lost in losses(a, b, turns).items():
        if lost:
            assert any(field.startswith(what) for field in reported), (what, reported)
