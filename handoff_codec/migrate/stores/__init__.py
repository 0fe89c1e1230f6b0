"""Migrating whole stores: JSONL files and SQLite session databases.

Both stores stream: they hold one batch of rows (SQLite) or one line (JSONL)
at a time, and they rewrite only the rows whose summary changes. The shared
pieces live here: the report, the progress hook and JSON re-serialization.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from .._items import MigrationStatus, ValueMigration

__all__ = [
    "Progress",
    "ProgressFactory",
    "StoreError",
    "StoreReport",
    "UntouchedRow",
    "backup_path",
    "dumps_like",
]


class StoreError(Exception):
    """The store cannot be migrated at all (missing, wrong kind, wrong schema).

    Raised before anything is written; the CLI prints it and exits 2.
    """


class Progress(Protocol):
    def update(self, n: int = 1) -> Any: ...

    def close(self) -> Any: ...


# Called once with the total (rows or bytes) and its unit name.
ProgressFactory = Callable[[int, str], Progress]


class UntouchedRow(BaseModel):
    """A row (SQLite id, or JSONL line number) left as it was, and why."""

    row: int
    index: int | None = None  # the element, when the row holds a JSON list of items
    reason: str
    format: str | None = None


class StoreReport(BaseModel):
    """What a store migration found and did (or would do, in a dry run)."""

    path: str
    store: str
    dry_run: bool
    written: bool = False
    backup: str | None = None
    sessions: int | None = None
    rows_scanned: int = 0
    items_scanned: int = 0
    summaries_found: int = 0
    migrated: int = 0
    already_current: int = 0
    untouched: int = 0
    invalid_rows: int = 0
    migrated_with_loss_notes: int = 0
    formats: dict[str, int] = Field(default_factory=dict)  # summaries read, by format
    migrated_by_format: dict[str, int] = Field(default_factory=dict)
    untouched_rows: list[UntouchedRow] = Field(default_factory=list)

    def add_invalid(self, row: int, reason: str) -> None:
        """A row that is not valid JSON: counted as untouched."""
        self.invalid_rows += 1
        self.untouched += 1
        self.untouched_rows.append(UntouchedRow(row=row, reason=reason))

    def add(self, row: int, outcome: ValueMigration, *, is_list: bool) -> None:
        """Count the results for the value stored in ``row``."""
        for index, result in enumerate(outcome.results):
            self.items_scanned += 1
            status = result.status
            if status is MigrationStatus.NOT_SUMMARY:
                continue
            self.summaries_found += 1
            if result.format is not None:
                name = result.format.value
                self.formats[name] = self.formats.get(name, 0) + 1
            if status is MigrationStatus.MIGRATED:
                self.migrated += 1
                if result.format is not None:
                    name = result.format.value
                    self.migrated_by_format[name] = self.migrated_by_format.get(name, 0) + 1
                if not result.lossless:
                    self.migrated_with_loss_notes += 1
            elif status is MigrationStatus.ALREADY_CURRENT:
                self.already_current += 1
            else:
                self.untouched += 1
                self.untouched_rows.append(UntouchedRow(
                    row=row, index=index if is_list else None,
                    reason=result.reason or "left untouched",
                    format=result.format.value if result.format else None))

    @property
    def ok(self) -> bool:
        """True when nothing was left untouched."""
        return self.untouched == 0


_STYLES: tuple[tuple[bool, tuple[str, str] | None], ...] = (
    (True, None),  # json.dumps defaults, as the Agents SDK's SQLiteSession writes
    (False, None),
    (True, (",", ":")),
    (False, (",", ":")),
)


def dumps_like(original: str, old: Any, new: Any) -> str:
    """Serialize ``new`` in the JSON style ``original`` (the text of ``old``) was written in.

    Tries the common ``json.dumps`` styles; falls back to the defaults, which
    is how ``SQLiteSession`` writes rows.
    """
    for ensure_ascii, separators in _STYLES:
        if json.dumps(old, ensure_ascii=ensure_ascii, separators=separators) == original:
            return json.dumps(new, ensure_ascii=ensure_ascii, separators=separators)
    return json.dumps(new)


def backup_path(path: Path) -> Path:
    """A new, unused ``<path>.bak-<UTC time>`` name next to ``path``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    number = 1
    while candidate.exists() or candidate.with_name(candidate.name + ".partial").exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{number}")
        number += 1
    return candidate


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
