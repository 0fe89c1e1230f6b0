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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    args = parser.parse_args()
    print(f"| A -> B | read | {' | '.join(KINDS)} | reported lost |")
    print("|---|---:|" + "---:|" * len(KINDS) + "---|")
    for a, b in PAIRS:
        result = measure(a, b, args.examples)
        counts, reported = result["counts"], result["reported"]
        n = counts["conversations"]
        cells = [f"{counts[kind]}/{n}" for kind in KINDS]
        lost = ", ".join(f"{what} ({reported[what]}/{counts['lost ' + what]})"
                         for what in ("name", "output") if counts[f"lost {what}"]) or "-"
        print(f"| {TITLES[a]} -> {TITLES[b]} | {counts['read']}/{n} | {' | '.join(cells)} "
              f"| {lost} |", flush=True)
        if result["errors"]:
            print(f"<!-- {a}->{b}: {result['errors'][0]} -->", flush=True)


if __name__ == "__main__":
    main()
