"""What a store action returns: one result type (:class:`StoreResult`) for ``migrate``,
``restore`` and ``forget``, and the rows and placeholders it lists.

:meth:`StoreReport.count` counts each row's outcome once, whatever the store;
a server store's run reports by shard (:class:`ServerReport`, merged over
shards), a restore what it put back (:class:`BackupRestoreReport`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from ..rule import MigrationResult, MigrationStatus, Row, RowOutcome, RowStatus
from .backup import key_json

if TYPE_CHECKING:
    from .options import MigrateOptions

__all__ = [
    "BackupRestoreReport", "ChangedRow", "ForgetReport", "LeakRow", "PlaceholderReport",
    "Progress", "ProgressFactory", "ServerReport", "StoreReport", "StoreResult", "UntouchedRow",
]

WITHHELD = "left as it is (reason withheld: encrypted store)"


class Progress(Protocol):
    """A progress display (a tqdm bar fits): ``update(n)`` per ``n`` rows or bytes done,
    ``close()`` at the end."""

    def update(self, n: int = 1) -> Any: ...

    def close(self) -> Any: ...


ProgressFactory = Callable[[int | None, str], Progress]
"""Makes a ``Progress``: called once with the total (rows or bytes; None: not known) and
its unit name."""


class _Report(BaseModel):
    """A report model that leaves its ``omit_if_none`` fields out of dumps while they
    are None, so a run without ``restore_empty`` reports exactly what it always did."""

    omit_if_none: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.omit_if_none:
            if name in data and data[name] is None:
                del data[name]
        return data


class StoreResult(_Report):
    """What a store action did: the one result type of ``migrate``, ``restore`` and
    ``forget`` (:class:`StoreReport`, :class:`BackupRestoreReport`, :class:`ForgetReport`).

    ``action`` says which; ``ok`` whether it leaves nothing to look at;
    ``notes`` are its warnings; ``changed_under_run`` counts rows that changed
    between the read and the write (a server store's run: run it again).
    """

    action: ClassVar[str] = "migrate"

    @property
    def ok(self) -> bool:
        return True

    @property
    def notes(self) -> list[str]:
        return []

    @property
    def changed_under_run(self) -> int:
        return 0


class ForgetReport(StoreResult):
    """What ``forget`` cleared: checkpoints in the store, records in the local state."""

    action: ClassVar[str] = "forget"

    path: str
    dry_run: bool = False  # counted what would be cleared; nothing cleared
    checkpoints: int = 0
    local_records: int = 0


class UntouchedRow(_Report):
    """A row (SQLite id, or JSONL line number) left as it was, and why."""

    omit_if_none = ("key",)

    row: int
    index: int | None = None  # the element, when the row holds a JSON list of items
    reason: str
    format: str | None = None
    key: list[Any] | None = None  # a server store's key for the row


class ChangedRow(_Report):
    """A row (SQLite key, or JSONL line number) whose summary is (or would be) rewritten."""

    omit_if_none = ("restored",)

    row: int
    index: int | None = None
    format: str | None = None
    key_order_only: bool = False  # a 0.20+ summary whose JSON records only get sorted keys
    restored: int | None = None  # with restore_empty: the turns made empty again


class LeakRow(BaseModel):
    """A turn that starts with a placeholder and goes on: reported, left as it is."""

    row: int
    index: int | None = None  # the element, when the row holds a JSON list of items
    turn: int | None = None  # the turn inside the summary; None: the stored item itself
    placeholder: str
    text: str  # the start of the turn's visible text
    key: list[Any] | None = None  # a server store's key for the row


class PlaceholderReport(BaseModel):
    """With ``restore_empty``: the placeholders made (or that would be made) empty again."""

    turns: int = 0  # turns emptied, inside summaries and stored items alike
    summaries: int = 0  # rewritten summaries that had a turn emptied
    items: int = 0  # stored items (not summaries) emptied
    by_placeholder: dict[str, int] = Field(default_factory=dict)
    leaks: list[LeakRow] = Field(default_factory=list)

    def count(self, result: MigrationResult) -> None:
        """Count the turns ``result`` empties (it is written, or would be)."""
        for restored in result.restored:
            text = restored.placeholder.text
            self.by_placeholder[text] = self.by_placeholder.get(text, 0) + 1
        self.turns += len(result.restored)
        if result.is_summary:
            self.summaries += bool(result.restored)
        else:
            self.items += 1

    def note_leaks(self, row: int, index: int | None, result: MigrationResult, *,
                   key: list[Any] | None = None, withheld: bool = False) -> None:
        """List the turns of ``result`` that start with a placeholder and go on."""
        summary = result.is_summary
        self.leaks += [LeakRow(row=row, index=index, turn=leak.index if summary else None,
                               placeholder=leak.placeholder.text, key=key,
                               text="(withheld: encrypted store)" if withheld else leak.text)
                       for leak in result.leaks]

    def merge(self, other: PlaceholderReport) -> None:
        """Add another shard's counts."""
        self.turns += other.turns
        self.summaries += other.summaries
        self.items += other.items
        for text, n in other.by_placeholder.items():
            self.by_placeholder[text] = self.by_placeholder.get(text, 0) + n
        self.leaks += other.leaks


class StoreReport(StoreResult):
    """What a store migration found and did (or would do, in a dry run)."""

    omit_if_none = ("placeholders",)
    server: ClassVar[bool] = False  # a server store's report (ServerReport): by shards

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
    placeholders: PlaceholderReport | None = None  # with ``restore_empty`` only

    @classmethod
    def start(cls, path: str, store: str, options: MigrateOptions) -> StoreReport:
        """A file store's run's report, empty: with ``list_changes`` it lists the changed
        rows, with ``restore_empty`` the placeholders."""
        return cls(path=path, store=store, dry_run=options.dry_run,
                   changed_rows=[] if options.list_changes else None,
                   placeholders=PlaceholderReport() if options.restore_empty else None)

    @property
    def items_changed(self) -> int:
        """Items (summaries and, with ``restore_empty``, others) rewritten, or that would be."""
        return self.migrated + (self.placeholders.items if self.placeholders else 0)

    def count(self, outcome: RowOutcome, row: int, key: list[Any] | None = None) -> None:
        """Count one row's outcome, once: the row is scanned, and each of its items found.

        ``row`` numbers the row in messages (a SQLite key, a JSONL line);
        ``key`` is a server store's key for it. A migrated outcome counts as
        written (or, in a dry run, as would be written).
        """
        self.rows_scanned += 1
        status = outcome.status
        if status is RowStatus.INVALID:
            self.invalid_rows += 1
            self.untouched += 1
            self.untouched_rows.append(UntouchedRow(row=row, key=key,
                                                    reason=outcome.reason or "unreadable"))
            return
        if not outcome.decoded:
            return
        self.rows_decoded += 1
        blocked = outcome.reason if status is RowStatus.REFUSED else None
        for index, (result, wanted) in enumerate(zip(outcome.results, outcome.rewrite,
                                                     strict=True)):
            self.items_scanned += 1
            where = index if outcome.is_list else None
            if self.placeholders is not None:
                self.placeholders.note_leaks(row, where, result, key=key,
                                             withheld=outcome.withheld)
            if result.status is MigrationStatus.NOT_SUMMARY:
                continue
            if result.status is MigrationStatus.RESTORED:
                self._count_restored(row, where, key, result, blocked)
                continue
            self.summaries_found += 1
            name = result.format.value if result.format is not None else None
            if name is not None:
                self.formats[name] = self.formats.get(name, 0) + 1
            if wanted and blocked is None:
                self._count_migrated(row, where, result, name)
                continue
            if wanted:
                reason: str | None = blocked
            elif result.changed:
                self.skipped_key_order += 1
                continue
            elif result.status is MigrationStatus.ALREADY_CURRENT:
                self.already_current += 1
                continue
            else:
                reason = WITHHELD if outcome.withheld else result.reason
            self.untouched += 1
            self.untouched_rows.append(UntouchedRow(row=row, index=where, key=key, format=name,
                                                    reason=reason or "left untouched"))

    def _count_migrated(self, row: int, index: int | None, result: MigrationResult,
                        name: str | None) -> None:
        self.migrated += 1
        if name is not None:
            self.migrated_by_format[name] = self.migrated_by_format.get(name, 0) + 1
        if not result.lossless:
            self.migrated_with_loss_notes += 1
        if result.key_order_only:
            self.key_order_only += 1
        restored = None
        if self.placeholders is not None:
            self.placeholders.count(result)
            restored = len(result.restored)
        if self.changed_rows is not None:
            self.changed_rows.append(ChangedRow(row=row, index=index, format=name,
                                                key_order_only=result.key_order_only,
                                                restored=restored))

    def _count_restored(self, row: int, index: int | None, key: list[Any] | None,
                        result: MigrationResult, blocked: str | None) -> None:
        """An item that is not a summary, whose placeholder is (or would be) emptied."""
        if blocked is not None:
            self.untouched += 1
            self.untouched_rows.append(UntouchedRow(row=row, index=index, key=key,
                                                    reason=blocked))
            return
        if self.placeholders is None:
            self.placeholders = PlaceholderReport()
        self.placeholders.count(result)
        if self.changed_rows is not None:
            self.changed_rows.append(ChangedRow(row=row, index=index,
                                                restored=len(result.restored)))

    @property
    def ok(self) -> bool:
        """True when nothing was left untouched."""
        return self.untouched == 0

    @property
    def notes(self) -> list[str]:
        return self.warnings


class ServerReport(StoreReport):
    """What a server-store run found and did, for one shard or merged over shards."""

    server: ClassVar[bool] = True

    shards: list[str] = Field(default_factory=list)
    changed_under_us: int = 0
    batches: int = 0
    backups: list[str] = Field(default_factory=list)
    resumed: bool = False

    @property
    def changed_under_run(self) -> int:
        return self.changed_under_us

    def count_row(self, row: Row, outcome: RowOutcome) -> None:
        """Count one row's outcome (a migrated one as written), with the row's key."""
        self.count(outcome, _row_number(row), key_json(row.key))

    def count_lost(self) -> None:
        """A row that changed between the read and the swap: scanned, left alone."""
        self.rows_scanned += 1
        self.changed_under_us += 1

    def merge(self, other: ServerReport) -> None:
        """Add another shard's counts to this report."""
        for name, value in other:
            mine = getattr(self, name)
            if isinstance(value, bool) or name in ("path", "store", "dry_run"):
                if name in ("written", "resumed"):
                    setattr(self, name, mine or value)
            elif isinstance(value, int):
                setattr(self, name, (mine or 0) + value)
            elif isinstance(value, PlaceholderReport):
                if mine is None:
                    setattr(self, name, value.model_copy(deep=True))
                else:
                    mine.merge(value)
            elif isinstance(value, dict):
                for key, count in value.items():
                    mine[key] = mine.get(key, 0) + count
            elif isinstance(value, list):
                mine.extend(value)


class BackupRestoreReport(StoreResult):
    """What ``restore`` put back (with ``dry_run``: would put back; nothing is written)."""

    action: ClassVar[str] = "restore"

    path: str
    backups: list[str]
    dry_run: bool = False
    rows: int = 0
    restored: int = 0
    already_old: int = 0  # rows that already held their old value (never changed, or twice)
    changed_since: int = 0  # rows holding neither value: left alone
    missing: int = 0  # records the store's checkpoint says a file held, and it lacks
    files_missing: int = 0  # backup files the store's checkpoints record, not restored
    warnings: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.changed_since == 0 and self.missing == 0 and self.files_missing == 0

    @property
    def notes(self) -> list[str]:
        return self.warnings


def _row_number(row: Row) -> int:
    last = row.key[-1]
    return last if isinstance(last, int) else 0
