"""The legacy fixtures (tests/fixtures/legacy_summaries.jsonl) and how to compare them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_summaries.jsonl"
ROWS: list[dict[str, Any]] = [json.loads(line) for line in FIXTURES.read_text().splitlines()]
SINGLE = [row for row in ROWS if row["kind"] == "single"]
NESTED = [row for row in ROWS if row["kind"] == "nested"]
VERSIONS = list(dict.fromkeys(row["version"] for row in ROWS))
_RECORD = re.compile(r"^([0-9]+)\. ", re.MULTILINE)


def row_id(row: dict[str, Any]) -> str:
    return f"{row['version']}-{row['kind']}-{row['case']}"


def turns(items: list[dict[str, Any]] | None) -> list[str | None]:
    """The turn sequence: each item's role, or its type when it has none."""
    return [item.get("role") or item.get("type") for item in items or []]


def records_written(summary: str) -> int:
    """How many records the writer numbered: the longest run 1, 2, 3, ... of record lines."""
    expected = 1
    for match in _RECORD.finditer(summary):
        expected += int(match[1]) == expected
    return expected - 1


def release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def writer_dropped(original: dict[str, Any], ours: dict[str, Any], version: str) -> str | None:
    """Why ``ours`` differs from ``original`` when the old writer already lost it, else None."""
    if (
        release(version) >= (0, 20)
        and original.get("content") is None
        and ours.get("content") == ""
    ):
        return "0.20+ writes None and '' alike as `N. role: `"
    content = original.get("content")
    if release(version) < (0, 20) and (
        (isinstance(content, str) and "\n" not in content) or isinstance(content, list)
    ):
        kept = {k: original[k] for k in ("role", "name", "content") if k in original}
        if kept == ours and kept != original:
            return "pre-0.20 plain records keep only role, name and content"
    return None
