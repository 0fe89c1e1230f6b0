"""Migrating whole stores: JSONL files and SQLite session databases.

Both stores stream: they hold one batch of rows (SQLite) or one line (JSONL)
at a time, and they rewrite only the rows whose summary changes, splicing the
new summary text into the row's own bytes (``_rows``). The shared pieces live
here: the errors, the report and the progress hook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from .._items import MigrationResult, MigrationStatus

__all__ = [
    "ChangedRow",
    "Progress",
    "ProgressFactory",
    "StoreError",
    "StoreRefusal",
    "StoreReport",
    "UntouchedRow",
    "to_rewrite",
]


class StoreError(Exception):
    """The store cannot be migrated at all (missing, wrong kind, wrong schema).

    Raised before anything is written; the CLI prints it and exits 2.
    """


class StoreRefusal(StoreError):
    """The store exists but the run refused, or stopped, without changing it.

    Open writers, hard links, a read-only file, another migration holding the
    lock, a store that changed under the run, a table whose rows cannot be
    addressed. The store is as it was; the CLI prints it and exits 1.
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


class ChangedRow(BaseModel):
    """A row (SQLite key, or JSONL line number) whose summary is (or would be) rewritten."""

    row: int
    index: int | None = None
    format: str | None = None
    key_order_only: bool = False  # a 0.20+ summary whose JSON records only get sorted keys


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
    key_order_only: int = 0  # of ``migrated``: rewrites that only sort JSON keys
    skipped_key_order: int = 0  # such rewrites left alone (``legacy_only``)
    rows_decoded: int = 0  # rows that may hold a summary, and were read as JSON
    formats: dict[str, int] = Field(default_factory=dict)  # summaries read, by format
    migrated_by_format: dict[str, int] = Field(default_factory=dict)
    untouched_rows: list[UntouchedRow] = Field(default_factory=list)
    changed_rows: list[ChangedRow] | None = None  # with ``list_changes`` only
    warnings: list[str] = Field(default_factory=list)

    def add_invalid(self, row: int, reason: str) -> None:
        """A row that is not valid JSON: counted as untouched."""
        self.invalid_rows += 1
        self.untouched += 1
        self.untouched_rows.append(UntouchedRow(row=row, reason=reason))

    def add(self, row: int, results: list[MigrationResult], *, is_list: bool,
            rewrite: list[bool], blocked: str | None = None) -> None:
        """Count the results for the value stored in ``row``.

        ``rewrite`` says which changed items are written (see :func:`to_rewrite`);
        ``blocked`` is why none of them can be, when the row cannot be rewritten.
        """
        for index, (result, wanted) in enumerate(zip(results, rewrite, strict=True)):
            self.items_scanned += 1
            if result.status is MigrationStatus.NOT_SUMMARY:
                continue
            self.summaries_found += 1
            name = result.format.value if result.format is not None else None
            if name is not None:
                self.formats[name] = self.formats.get(name, 0) + 1
            where = index if is_list else None
            reason = result.reason if blocked is None or not wanted else blocked
            if wanted and blocked is None:
                self._count_migrated(row, where, result, name)
            elif result.changed and not wanted:
                self.skipped_key_order += 1
            elif result.status is MigrationStatus.ALREADY_CURRENT:
                self.already_current += 1
            else:
                self.untouched += 1
                self.untouched_rows.append(UntouchedRow(
                    row=row, index=where, reason=reason or "left untouched", format=name))

    def _count_migrated(self, row: int, index: int | None, result: MigrationResult,
                        name: str | None) -> None:
        self.migrated += 1
        if name is not None:
            self.migrated_by_format[name] = self.migrated_by_format.get(name, 0) + 1
        if not result.lossless:
            self.migrated_with_loss_notes += 1
        if result.key_order_only:
            self.key_order_only += 1
        if self.changed_rows is not None:
            self.changed_rows.append(ChangedRow(row=row, index=index, format=name,
                                                key_order_only=result.key_order_only))

    @property
    def ok(self) -> bool:
        """True when nothing was left untouched."""
        return self.untouched == 0


def to_rewrite(results: list[MigrationResult], legacy_only: bool) -> list[bool]:
    """Which results to write: every change, or with ``legacy_only`` every change that
    does more than sort the JSON keys of a summary already in the current format."""
    return [r.changed and not (legacy_only and r.key_order_only) for r in results]
