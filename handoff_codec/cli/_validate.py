"""``handoff-codec validate``: do these items replay to a target model as they are?

The verdict is ``replay``'s (:func:`._replay.check`): exit 0 when the items
replay to the target as they are, 1 when they cannot, or only with repairs
(each listed as a ``repair`` row; ``replay`` writes the repaired request).
The rows are the problems ``handoff_codec.replay.validate`` finds, all at
once, except the two it reports as a problem of the items themselves (a ``name`` key,
null content): at the command line those are what ``replay`` does with them,
a repair or nothing. The text report is the rows as a table, the verdict with
the counts (``ok: N items, target T``, ``E errors: ...`` or ``R repairs:
...``), and the ``replay`` command that writes the request (``next:``).
``--json`` prints the ``ValidationReport`` with the keys of every report
(``_report``; each problem gains ``where``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._io import add_input_argument, read_items, write_json
from ._replay import PROVIDERS, Check, check
from ._report import next_line, shape

if TYPE_CHECKING:
    from ..replay import Problem

# What validate() reports of the items themselves; replay reads past both.
_CONVERTER_ONLY = ("name-key", "null-content")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate", help="check that items (JSON or JSON Lines) replay to a target model",
        usage="%(prog)s [--target T] [options] [FILE]",
        description="Exit 0 when the items replay to the target as they are (handoff-codec "
                    "replay then exits 0 too); 1 when they cannot, or only with repairs, "
                    "each listed.")
    add_input_argument(parser)
    parser.add_argument("--target", choices=PROVIDERS, default="chat_completions",
                        help="the provider the items will be sent to (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="write the whole report as JSON instead of a table")
    parser.set_defaults(func=run)


def _replay_command(args: argparse.Namespace) -> str:
    """The ``replay`` of the same items for the same target; ``-``: give them on stdin again."""
    return shlex.join(["handoff-codec", "replay", "--target", args.target, args.file])


Row = tuple[str, "Problem"]  # the severity shown ("repair" for a repair), the problem


def rows(found: Sequence[Problem], replayed: Check) -> list[Row]:
    """validate()'s problems and replay's repairs, as the command line reports them."""
    out: list[Row] = [(problem.severity, problem) for problem in found
                      if problem.code not in _CONVERTER_ONLY]
    if replayed.conversion is not None:
        # replay wrote a request its target takes: what it changed is the whole story.
        out = [row for row in out if row[0] != "error"]
        out += [("repair", note) for note in replayed.repairs]
    elif replayed.error is not None and not any(row[0] == "error" for row in out):
        out.append(("error", replayed.error))
    out.sort(key=lambda row: -1 if row[1].index is None else row[1].index)
    return out


def run(args: argparse.Namespace) -> int:
    from ..replay import validate

    items = read_items(args.file, then=f"handoff-codec validate --target {args.target}")
    report = validate(items, target=args.target)
    replayed = check(items, args.target)
    found = rows(report.problems, replayed)
    code = replayed.exit_code
    following = _replay_command(args) if replayed.conversion is not None else None
    if args.json:
        document: dict[str, Any] = report.model_dump(mode="json")
        problems = [{"where": "all items" if p.index is None else f"item {p.index}",
                     **p.model_dump(mode="json"), "severity": severity}
                    for severity, p in found]
        document.update(shape(exit_code=code, items=len(items), problems=problems, counts={},
                              next_command=following))
        write_json(document)
    else:
        sys.stdout.write(table(found, len(items), args.target)
                         + "".join(f"{line}\n" for line in next_line(following)))
    return code


def table(found: Sequence[Row], count: int, target: str) -> str:
    """The rows as an aligned table, then a one-line verdict."""
    rows = [("INDEX", "SEVERITY", "CODE", "MESSAGE")]
    rows += [("-" if p.index is None else str(p.index), severity, p.code, p.message)
             for severity, p in found]
    lines = []
    if found:
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)]
            lines.append("  ".join([*cells, row[3]]))
    errors = sum(severity == "error" for severity, _ in found)
    repairs = sum(severity == "repair" for severity, _ in found)
    if errors:
        verdict = f"{errors} error{'s' if errors != 1 else ''}"
    elif repairs:
        verdict = (f"{repairs} repair{'s' if repairs != 1 else ''} needed (replay writes the "
                   "repaired request, lists them and exits 1)")
    else:
        verdict = "ok"
    lines.append(f"{verdict}: {count} item{'s' if count != 1 else ''}, target {target}")
    return "\n".join(lines) + "\n"
