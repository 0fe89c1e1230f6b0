"""Migrate a server store online: short compare-and-swap batches, checkpoints, shards.

One shard's run, batch after batch::

    read up to --batch-size rows after the checkpoint (key order, this shard only)
    apply the per-row rule in memory
    append every row about to change to the backup (old value first), fsync
    one transaction: compare-and-swap each row, save the checkpoint
    sleep --pause seconds

A row whose value changed between the read and the swap is left alone and
counted (``changed_under_us``). ``--workers N`` runs shards 0..N-1 in N local
processes and merges their reports; ``--shard K/N`` runs one of them (on any
machine). The backup is JSONL: a header line, then one line per changed row,
``{"key": [...], "session_id": ..., "old": ..., "new": ...}``; ``restore``
writes each ``old`` back where the row still holds ``new``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from . import PlaceholderReport, StoreError, StoreReport, UntouchedRow
from ._backup import BackupWriter, read_backup
from ._protocol import Batch, Change, Checkpoint, Row, ServerStore, Shard
from ._rows import RowOutcome, RowRule
from ._state import record_backup, recorded_backup

if TYPE_CHECKING:
    from ..._codec import Codec

__all__ = [
    "OnlineOptions",
    "RestoreReport",
    "ServerReport",
    "is_store_url",
    "open_store",
    "restore",
    "run",
]

SQL_SCHEMES = ("postgresql", "postgres", "mysql", "mariadb", "sqlite")
REDIS_SCHEMES = ("redis", "rediss", "unix")


def is_store_url(text: str) -> bool:
    """Whether ``text`` names a server store (a URL with a known scheme), not a file."""
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.split("+", 1)[0].lower() in SQL_SCHEMES + REDIS_SCHEMES


ServerUntouched = UntouchedRow  # the 0.2.0.dev0 name: an untouched row with its ``key``


class ServerReport(StoreReport):
    """What a server-store run found and did, for one shard or merged over shards."""

    shards: list[str] = Field(default_factory=list)
    changed_under_us: int = 0
    batches: int = 0
    backups: list[str] = Field(default_factory=list)
    resumed: bool = False

    def count_row(self, row: Row, outcome: RowOutcome) -> None:
        """Count one row's outcome (a migrated one as written), with the row's key."""
        self.count(outcome, _row_number(row), _key_json(row.key))

    def count_lost(self) -> None:
        """A row that changed between the read and the swap: scanned, left alone."""
        self.rows_scanned += 1
        self.changed_under_us += 1

    def add_row(self, row: Row, outcome: RowOutcome, *, redact: bool = False) -> None:
        """:meth:`count_row` under its 0.2.0.dev0 name (``redact``: the outcome says it)."""
        self.count_row(row, outcome)

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


class RestoreReport(BaseModel):
    """What ``restore`` put back."""

    path: str
    backups: list[str]
    rows: int = 0
    restored: int = 0
    already_old: int = 0  # rows that already held their old value (never changed, or twice)
    changed_since: int = 0  # rows holding neither value: left alone

    @property
    def ok(self) -> bool:
        return self.changed_since == 0


@dataclass(frozen=True)
class OnlineOptions:
    """Everything a shard's run needs (picklable, for worker processes)."""

    url: str
    dry_run: bool = False
    batch_size: int = 500
    pause: float = 0.0
    shard: Shard = field(default_factory=Shard)
    workers: int = 1
    resume: bool = False
    backup: str | None = None
    write_backup: bool = True
    messages_table: str = "agent_messages"
    sessions_table: str = "agent_sessions"
    key_prefix: str = "agents:session"
    lock_ttl: float = 60.0
    encryption_key_env: str | None = None
    codec: Codec | None = None
    restore_empty: bool = False


def open_store(options: OnlineOptions) -> ServerStore:
    """The store ``options.url`` names."""
    scheme = options.url.partition("://")[0].split("+", 1)[0].lower()
    if scheme in REDIS_SCHEMES:
        from ._redis import RedisStore

        return RedisStore(options.url, key_prefix=options.key_prefix,
                          lock_ttl=options.lock_ttl)
    from ._sqlalchemy import SQLAlchemyStore

    return SQLAlchemyStore(options.url, messages_table=options.messages_table,
                           sessions_table=options.sessions_table)


def _rule(options: OnlineOptions) -> Callable[[Row], RowOutcome]:
    """The per-row rule for this store's rows: ``RowRule``, inside the encrypted one."""
    rule = RowRule(options.codec, restore_empty=options.restore_empty)
    if options.encryption_key_env is None:
        return lambda row: rule(row.value)
    key = os.environ.get(options.encryption_key_env)
    if not key:
        raise StoreError(f"the environment variable {options.encryption_key_env} "
                         "(the EncryptedSession key) is not set")
    from ._encrypted import EncryptedRule

    return EncryptedRule(key, rule=rule)


def run(options: OnlineOptions) -> ServerReport:
    """Run one shard (``options.shard``), or ``options.workers`` shards in processes."""
    if options.workers <= 1:
        return run_shard(options)
    if options.shard.count != 1:
        raise StoreError("use either --workers or --shard, not both")
    shards = [replace(options, workers=1, shard=Shard(k, options.workers))
              for k in range(options.workers)]
    with ProcessPoolExecutor(len(shards), mp_context=get_context("spawn")) as pool:
        reports = list(pool.map(run_shard, shards))
    merged = reports[0]
    for other in reports[1:]:
        merged.merge(other)
    return merged


def _scope(store: ServerStore, options: OnlineOptions, shard: Shard) -> str:
    """What a backup recorded in the local state belongs to: the store, its table or
    key prefix, and the shard."""
    return "|".join((store.kind, store.where, options.messages_table, options.key_prefix,
                     str(shard)))


def _backup_path(options: OnlineOptions, scope: str) -> tuple[Path, bool]:
    """The backup file of this run (absolute), and whether it was recorded by an earlier one.

    The operator names it (``--backup-file``), or a resume finds the one its
    earlier run recorded in the local state directory, or it is a new file in
    the working directory. A path stored in the store is never used.
    """
    if options.backup:
        path = Path(os.path.abspath(options.backup))
    else:
        if options.resume:
            recorded = recorded_backup(scope)
            if recorded is not None:
                return recorded, True
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = Path.cwd() / f"handoff-codec-backup-{stamp}.jsonl"
    shard = options.shard
    if shard.count > 1:
        path = path.with_name(f"{path.stem}.shard-{shard.index}-of-{shard.count}{path.suffix}")
    return path, False


def _key_json(key: tuple[Any, ...]) -> list[Any]:
    return [k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k for k in key]


def _row_number(row: Row) -> int:
    last = row.key[-1]
    return last if isinstance(last, int) else 0


def run_shard(options: OnlineOptions) -> ServerReport:
    """Migrate one shard of the store, resuming from its checkpoint with ``resume``."""
    rule = _rule(options)
    store = open_store(options)
    try:
        return _run_shard(store, options, rule)
    finally:
        store.close()


def _run_shard(store: ServerStore, options: OnlineOptions,
               rule: Callable[[Row], RowOutcome]) -> ServerReport:
    shard, dry = options.shard, options.dry_run
    report = ServerReport(path=store.where, store=store.kind, dry_run=dry, shards=[str(shard)],
                          placeholders=PlaceholderReport() if options.restore_empty else None)
    if dry:
        for batch in store.batches(None, options.batch_size, shard):
            report.batches += 1
            for row in batch.rows:
                report.count_row(row, rule(row))
        return report
    prepare = getattr(store, "prepare", None)
    if prepare is not None:
        prepare(shard)
    with store.lock(shard):
        position: Any = None
        checkpoint = store.load_checkpoint(shard) if options.resume else None
        if checkpoint is not None and checkpoint.done:
            # Its figures are an earlier run's: run the shard again, and report this run.
            report.warnings.append(f"shard {shard} had finished before; --resume ran it "
                                   "again from the start")
        elif checkpoint is not None:
            report = ServerReport.model_validate(checkpoint.report)
            report.resumed = True
            position = checkpoint.position
        writer: BackupWriter | None = None
        if options.write_backup:
            scope = _scope(store, options, shard)
            backup, _ = _backup_path(options, scope)
            header = {"store": store.where, "kind": store.kind, "shard": str(shard)}
            writer = BackupWriter(backup, header, append=options.resume,
                                  on_create=lambda path: record_backup(scope, path))
        stalled = False  # a row could not be read (cannot decrypt): progress stops there
        with writer or contextlib.nullcontext():
            for batch in store.batches(position, options.batch_size, shard):
                stalled = _run_batch(store, batch, rule, report, writer, stalled)
                if options.pause:
                    time.sleep(options.pause)
            if stalled:
                report.warnings.append(
                    "some rows could not be read (cannot decrypt: wrong key or corrupt token); "
                    "no progress was recorded past the first of them, so a run with the right "
                    "key (--resume included) reads them again")
            else:
                store.commit([], lambda _: Checkpoint(None, True,
                                                      report.model_dump(mode="json")))
    return report


def _run_batch(store: ServerStore, batch: Batch, rule: Callable[[Row], RowOutcome],
               report: ServerReport, writer: BackupWriter | None, stalled: bool) -> bool:
    """Migrate one batch; whether progress has stalled (this batch or an earlier one)."""
    changes: list[Change] = []
    outcomes: list[RowOutcome] = []
    for row in batch.rows:
        outcome = rule(row)
        stalled = stalled or outcome.unreadable
        if outcome.new is None:
            report.count_row(row, outcome)
        else:
            changes.append(Change(row, outcome.new))
            outcomes.append(outcome)
    report.batches += 1
    if changes and writer is not None:
        writer.write([(_key_json(change.row.key), change.row.session_id, change.row.value,
                       change.new) for change in changes])
        if str(writer.path) not in report.backups:
            report.backups.append(str(writer.path))

    def settle(written: list[bool]) -> Checkpoint:
        # Runs inside the batch's transaction where the store has one, so the
        # checkpoint and its counts commit together with the rows.
        for change, outcome, ok in zip(changes, outcomes, written, strict=True):
            if ok:
                report.count_row(change.row, outcome)
                report.written = True
            else:
                report.count_lost()
        return Checkpoint(batch.position, False, report.model_dump(mode="json"))

    if stalled:
        written = store.commit(changes, None)
        settle(written)  # counted; the checkpoint it returns is not saved
    else:
        store.commit(changes, settle)
    return stalled


def restore(backups: Sequence[str], options: OnlineOptions) -> RestoreReport:
    """Put back the old values of ``backups`` wherever a row still holds the new one."""
    store = open_store(options)
    try:
        report = RestoreReport(path=store.where, backups=list(backups))
        for path in backups:
            _restore_file(store, Path(path), options.batch_size, report)
        return report
    finally:
        store.close()


def _restore_file(store: ServerStore, path: Path, size: int, report: RestoreReport) -> None:
    backup = read_backup(path)
    # Newest first, should a row appear twice (a batch backed up by a killed run, then
    # again by its resume): the oldest record's ``old`` is what ends up in the row.
    changes = [Change(Row(store.row_key(record.key), record.session_id, record.new),
                      record.old) for record in reversed(backup.records)]
    for start in range(0, len(changes), size):
        chunk = changes[start:start + size]
        written = store.commit(chunk, None)
        report.rows += len(written)
        report.restored += sum(written)
        # A row not holding the migrated value may already hold the old one (a batch
        # backed up but never committed by a killed run, or a row listed twice): a
        # swap of the old value for itself tells which.
        missed = [Change(Row(c.row.key, c.row.session_id, c.new), c.new)
                  for c, ok in zip(chunk, written, strict=True) if not ok]
        already = sum(store.commit(missed, None)) if missed else 0
        report.already_old += already
        report.changed_since += len(missed) - already
