"""The one report shape of ``decode``, ``validate`` and ``migrate``: counts, problems, next.

In ``--json`` every report has these keys beside the command's own:

* ``ok`` (bool) and ``exit`` (the exit code);
* ``counts``: an object of integers; ``items`` (items read, checked or
  scanned), ``errors``, ``repairs``, ``warnings`` and ``infos`` (problems
  by severity) in every report, and the command's own counts after them;
* ``problems``: a list of ``{"where", "code", "message", "severity"}``
  (``severity`` one of ``error``, ``repair`` (what ``replay`` had to change
  for the target: ``validate``), ``warning``, ``info``), with the fields
  that place the problem (``line``, ``index``, ``row``, ``key``) kept;
* ``next``: the command to run next, or null.

In text the same three parts come in that order: the problems (one line
each, the place first), the counts, and ``next: COMMAND`` when there is one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SEVERITIES", "next_line", "problem", "shape"]

SEVERITIES = ("error", "repair", "warning", "info")


def problem(where: str, code: str, message: str, severity: str, **place: Any) -> dict[str, Any]:
    """One problem of a report; ``place`` holds the fields that locate it."""
    return {"where": where, "code": code, "message": message, "severity": severity, **place}


def shape(*, exit_code: int, items: int, problems: Sequence[Mapping[str, Any]],
          counts: Mapping[str, int], next_command: str | None) -> dict[str, Any]:
    """The keys every report has: ``ok``, ``exit``, ``counts``, ``problems``, ``next``."""
    by_severity = {f"{s}s": sum(p["severity"] == s for p in problems) for s in SEVERITIES}
    return {"ok": exit_code == 0, "exit": exit_code,
            "counts": {"items": items, **by_severity, **counts},
            "problems": list(problems), "next": next_command}


def next_line(command: str | None) -> list[str]:
    """The text report's last line: ``next: COMMAND`` (none without a next command)."""
    return [f"next: {command}"] if command else []
