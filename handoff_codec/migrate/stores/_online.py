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
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from multiprocessing import get_context
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ... import default_codec
from . import LeakRow, PlaceholderReport, StoreError, StoreReport, UntouchedRow, to_rewrite
from ._capacity import within_capacity
from ._protocol import Batch, Change, Checkpoint, Row, RowOutcome, ServerStore, Shard, migrate_row
from ._rows import Prefilter
from ._workers import die_with_parent

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
BACKUP_FORMAT = 1


def is_store_url(text: str) -> bool:
    """Whether ``text`` names a server store (a URL with a known scheme), not a file."""
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.split("+", 1)[0].lower() in SQL_SCHEMES + REDIS_SCHEMES


class ServerUntouched(UntouchedRow):
    """A row left as it was: ``key`` is its key in the store (``row``: its id or index)."""

    key: list[Any]


class ServerReport(StoreReport):
    """What a server-store run found and did, for one shard or merged over shards."""

    shards: list[str] = Field(default_factory=list)
    # add_row turns each UntouchedRow the base class appends into one with its key.
    untouched_rows: list[ServerUntouched] = Field(  # type: ignore[assignment]
        default_factory=list)
    changed_under_us: int = 0
    batches: int = 0
    backups: list[str] = Field(default_factory=list)
    resumed: bool = False

    def add_row(self, row: Row, outcome: RowOutcome, *, redact: bool) -> None:
        """Count one row's outcome (call only for rows kept or written)."""
        if outcome.migration is None and outcome.error is None:
            return  # a row the prefilter ruled out: only its scan counts
        before = len(self.untouched_rows)
        leaks_before = len(self.placeholders.leaks) if self.placeholders else 0
        blocked = outcome.error is not None and outcome.migration is not None \
            and outcome.migration.changed
        counts = self.placeholders.model_copy(deep=True) if blocked and self.placeholders \
            else None
        if outcome.migration is not None:
            self.rows_decoded += 1
            results = outcome.migration.results
            self.add(_row_number(row), results, is_list=len(results) != 1,
                     rewrite=to_rewrite(results, legacy_only=False))
        if self.placeholders is not None:
            self._key_leaks(row, leaks_before, redact)
        if outcome.error is not None:
            if outcome.migration is not None and outcome.migration.changed:
                self.migrated -= sum(r.changed and r.is_summary
                                     for r in outcome.migration.results)
                if counts is not None and self.placeholders is not None:
                    counts.leaks = self.placeholders.leaks  # found, though nothing is written
                    self.placeholders = counts
                self.untouched += 1
                self.untouched_rows.append(ServerUntouched(
                    row=_row_number(row), reason=outcome.error, key=[]))
            elif outcome.migration is None:
                self.add_invalid(_row_number(row), outcome.error)
        key = _key_json(row.key)
        for i in range(before, len(self.untouched_rows)):
            fields = self.untouched_rows[i].model_dump()
            fields["key"] = key
            if redact:
                fields["reason"] = "left as it is (reason withheld: encrypted store)"
            self.untouched_rows[i] = ServerUntouched(**fields)

    def _key_leaks(self, row: Row, start: int, redact: bool) -> None:
        """Give the leaks found in ``row`` (from index ``start``) the row's key."""
        assert self.placeholders is not None
        leaks = self.placeholders.leaks
        for i in range(start, len(leaks)):
            fields = leaks[i].model_dump()
            fields["key"] = _key_json(row.key)
            if redact:
                fields["text"] = "(withheld: encrypted store)"
            leaks[i] = LeakRow(**fields)

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
    changed_since: int = 0  # rows no longer holding the migrated value: left alone

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


def _rule(options: OnlineOptions) -> tuple[Callable[[Row], RowOutcome], bool]:
    restore = options.restore_empty
    if options.encryption_key_env is None:
        codec = options.codec
        prefilter = Prefilter(codec or default_codec, restore_empty=restore)
        return (lambda row: migrate_row(row.value, codec, restore_empty=restore,
                                        prefilter=prefilter)), False
    key = os.environ.get(options.encryption_key_env)
    if not key:
        raise StoreError(f"the environment variable {options.encryption_key_env} "
                         "(the EncryptedSession key) is not set")
    from ._encrypted import EncryptedRule

    return EncryptedRule(key, options.codec, restore_empty=restore), True


def run(options: OnlineOptions) -> ServerReport:
    """Run one shard (``options.shard``), or ``options.workers`` shards in processes."""
    if options.workers <= 1:
        return run_shard(options)
    if options.shard.count != 1:
        raise StoreError("use either --workers or --shard, not both")
    shards = [replace(options, workers=1, shard=Shard(k, options.workers))
              for k in range(options.workers)]
    with ProcessPoolExecutor(len(shards), mp_context=get_context("spawn"),
                             initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        reports = list(pool.map(run_shard, shards))
    merged = reports[0]
    for other in reports[1:]:
        merged.merge(other)
    return merged


def _backup_path(options: OnlineOptions, previous: str | None) -> Path:
    if options.backup:
        path = Path(options.backup)
    elif previous:
        return Path(previous)
    else:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = Path(f"handoff-codec-backup-{stamp}.jsonl")
    shard = options.shard
    if shard.count > 1:
        path = path.with_name(f"{path.stem}.shard-{shard.index}-of-{shard.count}{path.suffix}")
    return path


def _open_backup(path: Path, header: dict[str, Any], append: bool) -> IO[str]:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise StoreError(f"{path}: the backup file exists; name another with --backup") from None
    file = os.fdopen(fd, "w", encoding="utf-8")
    if not append or file.tell() == 0:
        file.write(json.dumps(header) + "\n")
    return file


def _key_json(key: tuple[Any, ...]) -> list[Any]:
    return [k.decode("utf-8", "surrogateescape") if isinstance(k, bytes) else k for k in key]


def _row_number(row: Row) -> int:
    last = row.key[-1]
    return last if isinstance(last, int) else 0


def run_shard(options: OnlineOptions) -> ServerReport:
    """Migrate one shard of the store, resuming from its checkpoint with ``resume``."""
    rule, redact = _rule(options)
    store = open_store(options)
    try:
        return _run_shard(store, options, rule, redact)
    finally:
        store.close()


def _run_shard(store: ServerStore, options: OnlineOptions,
               rule: Callable[[Row], RowOutcome], redact: bool) -> ServerReport:
    shard, dry = options.shard, options.dry_run
    report = ServerReport(path=store.where, store=store.kind, dry_run=dry, shards=[str(shard)],
                          placeholders=PlaceholderReport() if options.restore_empty else None)
    if dry:
        for batch in store.batches(None, options.batch_size, shard):
            report.batches += 1
            for row in batch.rows:
                report.rows_scanned += 1
                report.add_row(row, within_capacity(store, rule(row)), redact=redact)
        return report
    prepare = getattr(store, "prepare", None)
    if prepare is not None:
        prepare(shard)
    with store.lock(shard):
        position: Any = None
        checkpoint = store.load_checkpoint(shard) if options.resume else None
        if checkpoint is not None:
            report = ServerReport.model_validate(checkpoint.report)
            report.resumed = True
            if checkpoint.done:
                return report
            position = checkpoint.position
        out: IO[str] | None = None
        if options.write_backup:
            backup = _backup_path(options, report.backups[0] if report.backups else None)
            report.backups = [str(backup)]
            header = {"handoff_codec_backup": BACKUP_FORMAT, "store": store.where,
                      "kind": store.kind, "shard": str(shard)}
            out = _open_backup(backup, header, append=options.resume)
        with out or contextlib.nullcontext():
            for batch in store.batches(position, options.batch_size, shard):
                _run_batch(store, batch, rule, redact, report, out)
                if options.pause:
                    time.sleep(options.pause)
            store.commit([], lambda _: Checkpoint(None, True, report.model_dump(mode="json")))
    return report


def _run_batch(store: ServerStore, batch: Batch, rule: Callable[[Row], RowOutcome],
               redact: bool, report: ServerReport, out: IO[str] | None) -> None:
    changes: list[Change] = []
    outcomes: list[RowOutcome] = []
    for row in batch.rows:
        report.rows_scanned += 1
        outcome = within_capacity(store, rule(row))  # a row too long for its column: kept
        if outcome.new is None:
            report.add_row(row, outcome, redact=redact)
        else:
            changes.append(Change(row, outcome.new))
            outcomes.append(outcome)
    report.batches += 1
    if changes and out is not None:
        for change in changes:
            out.write(json.dumps({"key": _key_json(change.row.key),
                                  "session_id": change.row.session_id,
                                  "old": change.row.value.decode("utf-8"),
                                  "new": change.new.decode("utf-8")}, ensure_ascii=False)
                      + "\n")
        out.flush()
        os.fsync(out.fileno())

    def settle(written: list[bool]) -> Checkpoint:
        # Runs inside the batch's transaction where the store has one, so the
        # checkpoint and its counts commit together with the rows.
        for change, outcome, ok in zip(changes, outcomes, written, strict=True):
            if ok:
                report.add_row(change.row, outcome, redact=redact)
                report.written = True
            else:
                report.changed_under_us += 1
        return Checkpoint(batch.position, False, report.model_dump(mode="json"))

    store.commit(changes, settle)


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
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    try:
        header = json.loads(lines[0]) if lines else {}
    except ValueError:
        header = {}
    if not isinstance(header, dict) or header.get("handoff_codec_backup") != BACKUP_FORMAT:
        raise StoreError(f"{path}: not a handoff-codec backup file")
    changes = []
    for line in reversed(lines[1:]):  # newest first, should a row appear twice
        entry = json.loads(line)
        row = Row(store.row_key(entry["key"]), entry["session_id"],
                  entry["new"].encode("utf-8"))
        changes.append(Change(row, entry["old"].encode("utf-8")))
    for start in range(0, len(changes), size):
        written = store.commit(changes[start:start + size], None)
        report.rows += len(written)
        report.restored += sum(written)
        report.changed_since += len(written) - sum(written)
