"""The ``--restore-empty`` lines of a migration's text summary (files and server stores)."""

from __future__ import annotations

import json
from typing import Any

from ._options import listed, where

__all__ = ["placeholder_lines"]


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

    def line(leak: Any) -> str:
        row = f"{noun} {leak.row}" if noun else str(leak.key)
        return f"{where(row, leak.index, leak.turn)}: {_quoted(leak.text)}"

    return lines + listed(found.leaks, line)
