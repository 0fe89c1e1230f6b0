"""``handoff-codec validate``: can these items be replayed to a target model?"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..replay import TARGETS
from ._io import add_input_argument, read_items, write_json

if TYPE_CHECKING:
    from ..replay import Problem


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate", help="check that items (JSON or JSON Lines) replay to a target model")
    add_input_argument(parser)
    parser.add_argument("--target", choices=TARGETS, default="chat_completions",
                        help="the provider the items will be sent to (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="write the whole report as JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..replay import validate
    items = read_items(args.file)
    report = validate(items, target=args.target)
    if args.json:
        write_json(report.model_dump(mode="json"))
    else:
        sys.stdout.write(table(report.problems, len(items), args.target))
    return 0 if report.ok else 1


def table(problems: Sequence[Problem], count: int, target: str) -> str:
    """The problems as an aligned table, then a one-line verdict."""
    rows = [("INDEX", "SEVERITY", "CODE", "MESSAGE")]
    rows += [("-" if p.index is None else str(p.index), p.severity, p.code, p.message)
             for p in problems]
    lines = []
    if problems:
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
            lines.append("  ".join([*cells, row[3]]))
    errors = sum(p.severity == "error" for p in problems)
    verdict = "ok" if not errors else f"{errors} error{'s' if errors != 1 else ''}"
    lines.append(f"{verdict}: {count} item{'s' if count != 1 else ''}, target {target}")
    return "\n".join(lines) + "\n"
