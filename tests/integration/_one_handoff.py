"""Run one real handoff offline: triage hands over to billing; what billing receives."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from scripted_model import ScriptedModel, handoff_call, text

__all__ = ["second_agent_input"]


def second_agent_input(config: RunConfig, opening: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The input of billing's model call, after the real ``Runner`` hands ``opening`` over."""
    model = ScriptedModel()
    billing: Agent[Any] = Agent(name="billing", instructions="billing", model=model)
    triage: Agent[Any] = Agent(name="triage", instructions="triage", model=model,
                               handoffs=[billing])
    model.extend([[handoff_call(billing, call_id="call_1")], [text("ok", msg_id="msg_1")]])
    asyncio.run(Runner.run(triage, json.loads(json.dumps(opening)), run_config=config))
    assert model.remaining == 0
    return model.calls[-1].input
