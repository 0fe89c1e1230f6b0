"""Print the frameworks table of docs/frameworks.md: ``python -m benchmarks.frameworks``.

``--repeat N`` sets the timed pairs. The output is the markdown table the page shows, row
for row: paste it there. Then, for each module with ``measure_hops(repeat)`` (rows with
``framework``, ``hops``, ``metadata``, ``default_bytes``, ``ours_bytes``, ``render_ratio``
and, where they differ from the default's, ``native_bytes``, a lossless native rendering,
and ``cold_render_ratio``), the table of bytes and render cost by hops.
``--only NAME`` (repeatable) measures those frameworks only.
"""

from __future__ import annotations

import argparse
import importlib

MODULES = ("langgraph", "google_adk", "agent_framework")
COLUMNS = ("turns", "tool_calls", "tool_results", "media", "bytes")
HEADER = ("| framework | handoff | turns | tool calls | tool results | media | bytes "
          "| render cost, ours / theirs |")


def table(repeat: int, modules: tuple[str, ...] = MODULES) -> list[str]:
    """The table's lines: a header, then a default and an ours row for each framework."""
    lines = [HEADER, "|---|---|" + "---:|" * (len(COLUMNS) + 1)]
    for name in modules:
        row = importlib.import_module(f"benchmarks.frameworks.{name}").measure(repeat)
        for side in ("default", "ours"):
            counts = " | ".join(str(row[side][column]) for column in COLUMNS)
            ratio = f"{row['render_ratio']:.1f}x" if side == "ours" else ""
            lines.append(f"| {row['framework']} | {side} | {counts} | {ratio} |")
    return lines


HOPS_HEADER = ("| framework | hops | metadata | default bytes | native bytes | ours bytes "
               "| ours / native | render cost, ours / theirs | cold |")


def hops_table(repeat: int, modules: tuple[str, ...] = MODULES) -> list[str]:
    """The by-hops table's lines, for the modules that measure by hops."""
    lines = [HOPS_HEADER, "|---|---:|---|" + "---:|" * 6]
    for name in modules:
        module = importlib.import_module(f"benchmarks.frameworks.{name}")
        for row in getattr(module, "measure_hops", lambda _repeat: [])(repeat):
            native = row.get("native_bytes", row["default_bytes"])
            cold = row.get("cold_render_ratio")
            lines.append(
                f"| {row['framework']} | {row['hops']} | {'yes' if row['metadata'] else 'no'} "
                f"| {row['default_bytes']} | {native} | {row['ours_bytes']} "
                f"| {row['ours_bytes'] / native:.2f}x | {row['render_ratio']:.1f}x "
                f"| {'' if cold is None else f'{cold:.1f}x'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, allow_abbrev=False)
    parser.add_argument("--repeat", type=int, default=51,
                        help="interleaved timing pairs a framework (default 51)")
    parser.add_argument("--only", choices=MODULES, action="append",
                        help="measure this framework only (repeatable)")
    args = parser.parse_args()
    modules = tuple(args.only or MODULES)
    print("\n".join(table(args.repeat, modules)), flush=True)
    print()
    print("\n".join(hops_table(args.repeat, modules)), flush=True)


if __name__ == "__main__":
    main()
