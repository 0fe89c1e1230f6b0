"""Run real handoffs offline: a chain of agents, each handing over to the next."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))

from scripted_model import ScriptedModel, handoff_call, text

__all__ = ["last_agent_input", "second_agent_input"]


def last_agent_input(config: RunConfig, opening: list[dict[str, Any]], handoffs: int = 1
                     ) -> list[dict[str, Any]]:
    """The input of the last agent's model call, after the real ``Runner`` has run
    ``opening`` through ``handoffs`` handoffs."""
    model = ScriptedModel()
    chain: list[Agent[Any]] = [Agent(name=f"agent{n}", instructions=f"agent {n}", model=model)
                               for n in range(handoffs + 1)]
    for agent, following in itertools.pairwise(chain):
        agent.handoffs = [following]
    model.extend([[handoff_call(following, call_id=f"call_{n}")]
                  for n, following in enumerate(chain[1:])])
    model.extend([[text("ok", msg_id="msg_1")]])
    asyncio.run(Runner.run(chain[0], json.loads(json.dumps(opening)), run_config=config))
    assert model.remaining == 0
    return model.calls[-1].input


def second_agent_input(config: RunConfig, opening: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The input of the second agent's model call, after one real handoff."""
    return last_agent_input(config, opening, 1)
