"""The pair table of docs/frameworks.md: what each of the 20 directions keeps and reports.

For each ordered pair (A, B) of the five integrations, generated conversations
(tests/integrations/_pairs.py: user and assistant turns with names, parallel
tool calls with ids and JSON arguments, string and object results, images by
URL) go through ``B.read(A.dumps(A's messages))``; each kind of content is
compared with what both A and B hold. Run from the repository root::

    python tools/pair_table.py [--examples N]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings

from tests.integrations._pairs import (
    HOLDS_NAMES,
    HOLDS_OBJECTS,
    KINDS,
    PAIRS,
    Turn,
    conversations,
    hand,
    kept,
    losses,
)

TITLES = {"openai_agents": "OpenAI Agents SDK", "langgraph": "LangGraph",
          "google_adk": "Google ADK", "agent_framework": "Agent Framework",
          "pydantic_ai": "PydanticAI"}


def measure(a: str, b: str, examples: int) -> dict[str, Any]:
    """Counts over ``examples`` conversations: read at all, each kind kept, losses reported."""
    counts: Counter[str] = Counter()
    reported: Counter[str] = Counter()
    errors: list[str] = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=("generate",))
    @given(conversations())
    def run(turns: list[Turn]) -> None:
        counts["conversations"] += 1
        try:
            outcome = hand(a, b, turns)
        except Exception as exc:  # a reader that refuses the other's items
            errors.append(f"{type(exc).__name__}: {str(exc)[:80]}")
            return
        counts["read"] += 1
        for kind, ok in kept(outcome).items():
            counts[kind] += ok
        fields = {o.field.split(".")[0].split("[")[0] for o in outcome.omitted}
        for what, lost in losses(a, b, turns).items():
            if lost:
                counts[f"lost {what}"] += 1
                reported[what] += any(f.startswith(what) for f in fields)

    run()
    return {"counts": counts, "reported": reported, "errors": errors}


def _held(a: str, b: str, what: str, counts: Counter[str], reported: Counter[str]) -> str:
    """What the direction does with names or object results, and what ``read`` reported."""
    holds = HOLDS_NAMES if what == "name" else HOLDS_OBJECTS
    kept, lost = ("kept", "left out") if what == "name" else ("objects", "JSON text")
    if not holds[a]:
        return "none in A" if what == "name" else "JSON text in A"
    if holds[b]:
        return kept
    return f"{lost}, reported {reported[what]}/{counts['lost ' + what]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    args = parser.parse_args()
    kinds = [kind for kind in KINDS if kind != "names"]
    print(f"| A -> B | read | {' | '.join(kinds)} | names | object results |")
    print("|---|---:|" + "---:|" * len(kinds) + "---|---|")
    for a, b in PAIRS:
        result = measure(a, b, args.examples)
        counts, reported = result["counts"], result["reported"]
        n = counts["conversations"]
        cells = [f"{counts[kind]}/{n}" for kind in kinds]
        names = f"{counts['names']}/{n} as held; " + _held(a, b, "name", counts, reported)
        print(f"| {TITLES[a]} -> {TITLES[b]} | {counts['read']}/{n} | {' | '.join(cells)} "
              f"| {names} | {_held(a, b, 'output', counts, reported)} |", flush=True)
        if result["errors"]:
            print(f"<!-- {a}->{b}: {result['errors'][0]} -->", flush=True)


if __name__ == "__main__":
    main()
