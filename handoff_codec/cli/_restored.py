"""The ``--restore-empty`` lines of a migration's text summary (files and server stores)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["placeholder_lines"]

LIST_LIMIT = 20  # leaks listed in the text summary; --json lists them all


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def placeholder_lines(report: Any, noun: str | None) -> list[str]:
    """What ``--restore-empty`` emptied, and each leak: ``noun`` names a row (None: its key)."""
    found = report.placeholders
    if found is None:
        return []
    by = "; ".join(f"{_quoted(text)}: {n}" for text, n in sorted(found.by_placeholder.items()))
    label = "would restore:" if report.dry_run else "restored:"
    inside = found.turns - found.items
    lines = [f"  {label:<17} {found.turns} placeholder turns ({inside} in {found.summaries} "
             f"summaries, {found.items} other items{'; ' + by if by else ''})"]
    if not found.leaks:
        return lines
    lines.append(f"  {'placeholder leaks:':<17} {len(found.leaks)} turns start with a "
                 "placeholder and go on (reported, never cut)")
    for leak in found.leaks[:LIST_LIMIT]:
        where = f"{noun} {leak.row}" if noun else str(leak.key)
        if leak.index is not None:
            where += f" item {leak.index}"
        if leak.turn is not None:
            where += f" record {leak.turn + 1}"
        lines.append(f"    {where}: {_quoted(leak.text)}")
    hidden = len(found.leaks) - LIST_LIMIT
    if hidden > 0:
        lines.append(f"    ... and {hidden} more (see --json)")
    return lines
