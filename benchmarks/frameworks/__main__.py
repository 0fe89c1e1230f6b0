"""Print the frameworks table of docs/frameworks.md: ``python -m benchmarks.frameworks``.

``--repeat N`` sets the timed pairs. The output is the markdown table the page shows, row
for row: paste it there.
"""

from __future__ import annotations

import argparse
import importlib

MODULES = ("langgraph", "google_adk", "agent_framework")
COLUMNS = ("turns", "tool_calls", "tool_results", "media", "bytes")
HEADER = ("| framework | handoff | turns | tool calls | tool results | media | bytes "
          "| render cost, ours / theirs |")


def table(repeat: int) -> list[str]:
    """The table's lines: a header, then a default and an ours row for each framework."""
    lines = [HEADER, "|---|---|" + "---:|" * (len(COLUMNS) + 1)]
    for name in MODULES:
        row = importlib.import_module(f"benchmarks.frameworks.{name}").measure(repeat)
        for side in ("default", "ours"):
            counts = " | ".join(str(row[side][column]) for column in COLUMNS)
            ratio = f"{row['render_ratio']:.1f}x" if side == "ours" else ""
            lines.append(f"| {row['framework']} | {side} | {counts} | {ratio} |")
    return lines


def extra_tables(repeat: int) -> list[str]:
    """The tables a framework module adds with ``hop_table(repeat)``, each after a blank line."""
    lines: list[str] = []
    for name in MODULES:
        module = importlib.import_module(f"benchmarks.frameworks.{name}")
        if hasattr(module, "hop_table"):
            lines += ["", *module.hop_table(repeat)]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, allow_abbrev=False)
    parser.add_argument("--repeat", type=int, default=51,
                        help="interleaved timing pairs a framework (default 51)")
    repeat = parser.parse_args().repeat
    print("\n".join(table(repeat)), flush=True)
    print("\n".join(extra_tables(repeat)), flush=True)


if __name__ == "__main__":
    main()
