"""Migrating whole stores: JSONL files, SQLite session databases and server stores.

:func:`open_store` is the one way in, for a path or a URL: it finds the
backend (one :class:`Store` class per kind of store, registered in
``stores.base`` for its URL schemes or kinds of file) and builds it with the
one :class:`MigrateOptions` object. Every backend's ``migrate``, ``restore``
and ``forget`` return a :class:`StoreResult`. Every store applies the one
per-row rule (:class:`RowRule`), rewrites only the rows whose summary changes
by splicing the new text into the row's own bytes, and counts each row's
outcome once in its report. The shared pieces live here: the errors and the
results.

    >>> from handoff_codec.migrate.stores import MigrateOptions, open_store
    >>> store = open_store("examples/sessions.db", MigrateOptions(dry_run=True))
    >>> store.migrate().migrated
    5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from .._items import MigrationResult, MigrationStatus

if TYPE_CHECKING:
    from ._rows import RowOutcome

__all__ = [
    "BackupWriter",
    "Change",
    "ChangedRow",
    "Checkpoint",
    "EncryptedRule",
    "FileStore",
    "ForgetReport",
    "JSONLFileStore",
    "LeakRow",
    "MigrateOptions",
    "OnlineStore",
    "PlaceholderReport",
    "Progress",
    "ProgressFactory",
    "RedisListStore",
    "RestoreReport",
    "Row",
    "RowOutcome",
    "RowRule",
    "RowStatus",
    "SQLAlchemyTableStore",
    "SQLiteFileStore",
    "ServerReport",
    "ServerStore",
    "Shard",
    "StoppedRun",
    "Store",
    "StoreError",
    "StoreRefusal",
    "StoreReport",
    "StoreResult",
    "StoreUnreachable",
    "UntouchedRow",
    "check_state_dir",
    "check_target",
    "engine_url",
    "file_kind",
    "is_unreachable",
    "mask_url",
    "named_backup_files",
    "open_store",
    "read_backup",
    "register_store",
    "registered_schemes",
    "rewrite_redis_session",
    "scrub",
    "stop_when_written",
    "stopped_run",
    "to_rewrite",
    "url_scheme",
    "writable_dir",
]

# Public names defined in the store modules, imported when first used (the store
# modules import this one).
_LAZY = {"read_backup": "._backup", "Backup": "._backup", "BackupRecord": "._backup",
         "BackupWriter": "._backup",
         "RowRule": "._rows", "RowOutcome": "._rows", "RowStatus": "._rows",
         "Row": "._protocol", "Change": "._protocol", "Shard": "._protocol",
         "Checkpoint": "._protocol",
         "MigrateOptions": "._options", "mask_url": "._urls", "open_store": "._open",
         "check_target": "._open", "register_store": "._open",
         "registered_schemes": "._open", "Store": "._open", "FileStore": "._open",
         "EncryptedRule": "._encrypted",
         "RestoreReport": "._online", "ServerReport": "._online",
         "named_backup_files": "._online", "scrub": "._urls",
         "StoppedRun": "._online", "stopped_run": "._online",
         "stop_when_written": "._online",
         "url_scheme": "._open", "check_state_dir": "._state",
         "file_kind": "._open", "writable_dir": "._state", "is_unreachable": "._open",
         "engine_url": "._sqlalchemy",
         "rewrite_redis_session": "._redis_session", "ServerStore": "._protocol",
         "OnlineStore": "._online", "SQLiteFileStore": "._open", "JSONLFileStore": "._open",
         "SQLAlchemyTableStore": "._open", "RedisListStore": "._open"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)


WITHHELD = "left as it is (reason withheld: encrypted store)"


class StoreError(Exception):
    """The store cannot be migrated at all (missing, wrong kind, wrong schema).

    Raised before anything is written; the CLI prints it and exits 2.
    """


class StoreRefusal(StoreError):
    """The store exists but the run refused, or stopped part-way.

    Open writers, hard links, a read-only file, another migration holding the
    lock, a store that changed under the run, a table whose rows cannot be
    addressed: the store is as it was. A server-store run stopped part-way
    (a full disk under its backup file) says what it had committed and how to
    go on. The CLI prints it and exits 1.
    """


class StoreUnreachable(StoreError):
    """The store's server could not be reached (refused, timed out, name not found).

    Worth retrying later; the CLI exits 4.
    """


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
    ``forget`` (:class:`StoreReport`, :class:`RestoreReport`, :class:`ForgetReport`).

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
        from ._rows import RowStatus

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


def to_rewrite(results: list[MigrationResult], legacy_only: bool) -> list[bool]:
    """Which results to write: every change, or with ``legacy_only`` every change that
    does more than sort the JSON keys of a summary already in the current format."""
    return [r.changed and not (legacy_only and r.key_order_only) for r in results]
