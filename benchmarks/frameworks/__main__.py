"""Print the frameworks table: ``python -m benchmarks.frameworks [--repeat N]``."""

from __future__ import annotations

import argparse
import importlib

MODULES = ("langgraph", "google_adk", "agent_framework")
COLUMNS = ("turns", "tool_calls", "tool_results", "media", "bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, allow_abbrev=False)
    parser.add_argument("--repeat", type=int, default=51)
    args = parser.parse_args()
    print("| framework | handoff | " + " | ".join(COLUMNS) + " | render time, ours / theirs |")
    print("|---|---|" + "---|" * len(COLUMNS) + "---|")
    for name in MODULES:
        row = importlib.import_module(f"benchmarks.frameworks.{name}").measure(args.repeat)
        for side in ("default", "ours"):
            counts = " | ".join(str(row[side][column]) for column in COLUMNS)
            ratio = f"{row['render_ratio']:.2f}x" if side == "ours" else ""
            print(f"| {row['framework']} | {side} | {counts} | {ratio} |")


if __name__ == "__main__":
    main()
