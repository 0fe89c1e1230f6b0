"""``handoff-codec validate``: can these items be replayed to a target model?

The text report is the problems as a table, the verdict with the counts
(``ok: N items, target T`` or ``E errors: ...``), and after a clean check the
command that replays the items (``next:``) when ``replay`` writes for the
target. ``--json`` prints the ``ValidationReport`` with the keys of every
report (``_report``; each problem gains ``where``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..replay import TARGETS
from ._io import add_input_argument, read_items, write_json
from ._replay import PROVIDERS
from ._report import next_line, shape

if TYPE_CHECKING:
    from ..replay import Problem


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate", help="check that items (JSON or JSON Lines) replay to a target model",
        usage="%(prog)s [--target T] [options] [FILE]")
    add_input_argument(parser)
    parser.add_argument("--target", choices=TARGETS, default="chat_completions",
                        help="the provider the items will be sent to (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="write the whole report as JSON instead of a table")
    parser.set_defaults(func=run)


def _replay_command(args: argparse.Namespace) -> str | None:
    """The ``replay`` of the same items for the same target, if replay writes for it."""
    if args.target not in PROVIDERS:
        return None
    return shlex.join(["handoff-codec", "replay", "--target", args.target,
                       *([] if args.file == "-" else [args.file])])


def run(args: argparse.Namespace) -> int:
    from ..replay import validate
    items = read_items(args.file, then=f"handoff-codec validate --target {args.target}")
    report = validate(items, target=args.target)
    code = 0 if report.ok else 1
    following = _replay_command(args) if report.ok else None
    if args.json:
        document: dict[str, Any] = report.model_dump(mode="json")
        problems = [{"where": "all items" if p["index"] is None else f"item {p['index']}", **p}
                    for p in document["problems"]]
        document.update(shape(exit_code=code, items=len(items), problems=problems, counts={},
                              next_command=following))
        write_json(document)
    else:
        sys.stdout.write(table(report.problems, len(items), args.target)
                         + "".join(f"{line}\n" for line in next_line(following)))
    return code


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
