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
machine). The backup file's format is ``_backup``'s; ``restore`` writes each
row's old bytes back where the row still holds the new ones, and forgets the
checkpoints. A resume finds its backup as ``_backup_path`` says, never at a
path read from the store.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from multiprocessing import active_children, get_context
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, cast

from pydantic import Field

from . import (
    ForgetReport,
    PlaceholderReport,
    StoreError,
    StoreRefusal,
    StoreReport,
    StoreResult,
)
from ._backup import Backup, BackupWriter, file_store_run, key_json, verify_backup
from ._capacity import foreign_bytes, within_capacity
from ._files import same_file
from ._options import MigrateOptions
from ._protocol import Batch, Change, Checkpoint, Row, ServerStore, Shard, SwapRows
from ._rows import NULL_ROW, RowOutcome
from ._state import ensure_state_dir, forget_backups, record_backup, recorded_backup
from ._urls import mask_url
from ._workers import die_with_parent
from .base import Store, classify, for_workers

__all__ = [
    "OnlineStore",
    "RestoreReport",
    "RowRuleHook",
    "ServerReport",
    "StoppedRun",
    "named_backup_files",
    "stop_when_written",
    "stopped_run",
]

# A per-row rule in place of the codec's (a benchmark's floor): a row to its outcome.
RowRuleHook = Callable[[Row], RowOutcome]


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


class RestoreReport(StoreResult):
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


class OnlineStore(Store):
    """The base of the server backends: a store migrated online, in batches, by shard.

    A subclass says how to reach its rows (:meth:`rows`: a :class:`ServerStore`
    for the URL, the options and an optional client); the run, its backup
    file, checkpoints, restore and forget are the same for every server store.
    """

    kind = "server"

    def __init__(self, url: str, options: MigrateOptions, client: Any = None, *,
                 where: str | None = None) -> None:
        self.url, self.options, self.client = url, options, client
        self.where = where or mask_url(url)

    @classmethod
    def rows(cls, url: str, options: MigrateOptions, client: Any) -> ServerStore:
        """The store's row access for ``url`` (a new connection unless ``client``)."""
        raise NotImplementedError

    @classmethod
    def connect_rows(cls, url: str, options: MigrateOptions, client: Any = None
                     ) -> ServerStore:
        """:meth:`rows`, its errors worded for the user, its URL masked."""
        try:
            store = cls.rows(url, options, client)
        except StoreError as exc:
            raise classify(exc, url) from None
        store.where = mask_url(store.where)
        return store

    def connect(self) -> ServerStore:
        """The store's rows (batches, compare-and-swap), through a new connection."""
        return self.connect_rows(self.url, self.options, self.client)

    def migrate(self, rule: RowRuleHook | None = None) -> ServerReport:
        """Run one shard (``options.shard``), or ``options.workers`` shards in processes.

        ``rule`` replaces the codec's per-row rule (a floor to measure it against),
        through the same batches, backup, compare-and-swap and checkpoints.
        """
        return run(self.url, self.options, type(self), rule)

    def restore(self, backups: Sequence[str]) -> RestoreReport:
        return restore(self.connect(), self.options, backups)

    def forget(self) -> ForgetReport:
        store = self.connect()
        try:
            return _forget(store, self.options, ForgetReport(path=store.where))
        finally:
            store.close()


class Job(NamedTuple):
    """One shard's run, as a worker process gets it (picklable)."""

    url: str
    options: MigrateOptions
    backend: type[OnlineStore]
    rule: RowRuleHook | None = None


def _rule(options: MigrateOptions) -> RowRuleHook:
    """The per-row rule for this store's rows: ``RowRule``, inside the encrypted one."""
    rule = options.rule()
    if options.encryption_key_env is None:
        return lambda row: rule(row.value)
    key = os.environ.get(options.encryption_key_env)
    if not key:
        raise StoreError(f"the environment variable {options.encryption_key_env} "
                         "(the EncryptedSession key) is not set")
    from ._encrypted import EncryptedRule

    return EncryptedRule(key, rule=rule)


def run(url: str, options: MigrateOptions, backend: type[OnlineStore],
        rule: RowRuleHook | None = None) -> ServerReport:
    """Run one shard (``options.shard``), or ``options.workers`` shards in processes."""
    if options.workers <= 1:
        merged = run_shard(Job(url, options, backend, rule))
    else:
        if options.shard.count != 1:
            raise StoreError("use either --workers or --shard, not both")
        _rule(options)  # an unset key variable fails here, once
        base = for_workers(options)
        jobs = [Job(url, replace(base, workers=1, shard=Shard(k, options.workers)), backend,
                    rule) for k in range(options.workers)]
        others = set(active_children())
        pool = ProcessPoolExecutor(len(jobs), mp_context=get_context("spawn"),
                                   initializer=die_with_parent, initargs=(os.getpid(),))
        try:
            reports = list(pool.map(run_shard, jobs))
        except BaseException:
            # A stop (Ctrl-C, SIGTERM) or a failed shard: the other shards are stopped, not
            # waited for; like a kill, each of their batches is committed whole or not at all.
            for worker in set(active_children()) - others:
                worker.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        merged = reports[0]
        for other in reports[1:]:
            merged.merge(other)
    if merged.rows_scanned == 0:
        where = (f"key prefix {options.key_prefix!r}" if merged.store == "redis"
                 else f"table {options.messages_table!r}")
        merged.warnings.append(f"no rows found under the {where}: check --key-prefix or "
                               "--messages-table (an empty store looks like a clean one)")
    return merged


def _scope(store: SwapRows, options: MigrateOptions, shard: Shard) -> str:
    """What a backup recorded in the local state belongs to: the store, its table or
    key prefix, and the shard."""
    return "|".join((store.kind, store.where, options.messages_table, options.key_prefix,
                     str(shard)))


def _backup_path(options: MigrateOptions, scope: str) -> tuple[Path, bool]:
    """The backup file of this run (absolute), and whether it was recorded by an earlier one.

    The operator names it (``--backup-file``), or a resume finds the one its
    earlier run recorded in the local state directory, or it is a new file in
    the working directory. A path stored in the store is never used.
    """
    ensure_state_dir()  # refuse an unsafe state directory before anything is written
    if options.backup_file:
        path = Path(os.path.abspath(options.backup_file))
    else:
        if options.resume:
            recorded = recorded_backup(scope)
            if recorded is not None:
                return recorded, True
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = Path.cwd() / f"handoff-codec-backup-{stamp}.jsonl"
    return shard_backup_file(path, options.shard), False


def shard_backup_file(path: Path, shard: Shard) -> Path:
    """The backup file of ``shard`` when the run's is ``path``: ``PATH.shard-K-of-N.jsonl``."""
    if shard.count > 1:
        path = path.with_name(f"{path.stem}.shard-{shard.index}-of-{shard.count}{path.suffix}")
    return path


def named_backup_files(options: MigrateOptions) -> list[Path]:
    """The backup files a run writes to when ``backup_file`` names them (one per shard it
    runs, absolute), or [] when it does not name one."""
    if not options.backup or not options.backup_file:
        return []
    path = Path(os.path.abspath(options.backup_file))
    shards = ([Shard(k, options.workers) for k in range(options.workers)]
              if options.workers > 1 else [options.shard])
    return [shard_backup_file(path, shard) for shard in shards]


def _row_number(row: Row) -> int:
    last = row.key[-1]
    return last if isinstance(last, int) else 0


def run_shard(job: Job) -> ServerReport:
    """Migrate one shard of the store, resuming from its checkpoint with ``resume``."""
    rule = job.rule or _rule(job.options)
    store = job.backend.connect_rows(job.url, job.options)
    try:
        return _run_shard(store, job.options, rule)
    finally:
        store.close()


def _run_shard(store: ServerStore, options: MigrateOptions,
               rule: Callable[[Row], RowOutcome]) -> ServerReport:
    shard, dry = options.shard, options.dry_run
    report = ServerReport(path=store.where, store=store.kind, dry_run=dry, shards=[str(shard)],
                          placeholders=PlaceholderReport() if options.restore_empty else None)
    if dry:
        sessions: set[str] = set()
        with _progress(store, options, shard, report) as bar:
            for batch in store.batches(None, options.batch_size, shard):
                report.batches += 1
                for row in batch.rows:
                    report.count_row(row, _outcome(store, rule, row))
                    sessions.add(row.session_id)
                bar(len(batch.rows))
        report.sessions = len(sessions)
        return report
    prepare = getattr(store, "prepare", None)
    if prepare is not None:
        prepare(shard)
    with store.lock(shard):
        position: Any = None
        checkpoint = _earlier_checkpoint(store, shard, options.resume)
        if checkpoint is not None and options.resume and checkpoint.done:
            # Its figures are an earlier run's: run the shard again, and report this run.
            report.warnings.append(f"shard {shard} had finished before; --resume ran it "
                                   "again from the start")
        elif checkpoint is not None and options.resume:
            try:
                report = ServerReport.model_validate(checkpoint.report)
            except ValueError:
                raise _unreadable(store, shard) from None
            report.resumed = True
            position = checkpoint.position
        if getattr(store, "taken_over", False):
            report.warnings.append(
                f"the lock of shard {shard} was held by a pod of the same Job (the same Job "
                f"uid, index and layout: {options.job_id}); taken over")
        run = _Run(store, report, None,
                   dict(checkpoint.backups) if checkpoint is not None else {})
        if options.backup:
            scope = _scope(store, options, shard)
            backup, _ = _backup_path(options, scope)
            header = {"store": store.where, "kind": store.kind, "shard": str(shard),
                      "identity": getattr(store, "identity", store.where)}
            run.writer = BackupWriter(backup, header, append=options.resume,
                                      on_create=lambda path: record_backup(scope, path))
        counted, seen = report.sessions or 0, set[str]()  # a resumed run's sessions add up
        with run.writer or contextlib.nullcontext(), \
                _progress(store, options, shard, report) as bar:
            try:
                for batch in store.batches(position, options.batch_size, shard):
                    seen.update(row.session_id for row in batch.rows)
                    report.sessions = counted + len(seen)
                    _run_batch(run, batch, rule)
                    bar(len(batch.rows))
                    if options.pause:
                        time.sleep(options.pause)
            except OSError as exc:
                raise run.note(run.stopped(exc)) from None
            except BaseException as exc:  # Ctrl-C, SIGTERM, a lost connection, a lost lock
                run.note(exc)
                raise
            finally:
                if run.writer is not None:
                    report.warnings += run.writer.notes
            count_sessions = getattr(store, "count_sessions", None)
            if report.resumed and count_sessions is not None:
                # The sessions read before the checkpoint are not known one by one, so a
                # session with rows on both sides of it would be counted twice: count them.
                report.sessions = count_sessions(shard)
            if run.stalled:
                report.warnings.append(
                    "some rows could not be read (cannot decrypt: wrong key or corrupt token); "
                    "no progress was recorded past the first of them, so a run with the right "
                    "key (--resume included) reads them again")
            else:
                store.commit([], lambda _: run.checkpoint(None, True))
    return report


@contextlib.contextmanager
def _progress(store: ServerStore, options: MigrateOptions, shard: Shard,
              report: ServerReport) -> Iterator[Callable[[int], None]]:
    """``options.progress``'s bar over the shard's rows (rows done, rate, time left; a
    resumed run starts at the rows it had scanned), as a function of the rows just done;
    nothing without a bar."""
    if options.progress is None:
        yield lambda _: None
        return
    count = getattr(store, "count_rows", None)
    bar = options.progress(count(shard) if count is not None else None, "rows")
    if report.rows_scanned:
        bar.update(report.rows_scanned)
    try:
        yield bar.update
    finally:
        bar.close()


def _earlier_checkpoint(store: ServerStore, shard: Shard, resume: bool) -> Checkpoint | None:
    """The shard's checkpoint: to resume from, or (a new run) for the backup files it
    records, which the new run's checkpoint carries on. A new run passes over a
    checkpoint it cannot read."""
    try:
        return store.load_checkpoint(shard)
    except ValueError:
        if resume:
            raise _unreadable(store, shard) from None
        return None


def _unreadable(store: ServerStore, shard: Shard) -> StoreError:
    return StoreError(f"{store.where}: the checkpoint of shard {shard} cannot be read (edited "
                      "or planted?); nothing was written. Run without --resume, or "
                      "--forget first")


_STOPPED = "handoff_codec_stopped_run"


class _Writing:
    """While a batch is written: a stop (Ctrl-C, SIGTERM) is held until the write is done
    and counted, so that what a stopped run says it committed is what the store holds."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending: BaseException | None = None

    def __enter__(self) -> None:
        self.depth += 1

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self.depth -= 1
        if not self.depth and self.pending is not None:
            pending, self.pending = self.pending, None
            raise pending


_WRITING = _Writing()


def stop_when_written(exc: BaseException) -> None:
    """Raise ``exc`` (a signal handler's stop) now, or once the batch being written is
    written and counted."""
    if _WRITING.depth:
        _WRITING.pending = exc
        return
    raise exc


@dataclass(frozen=True)
class StoppedRun:
    """What a server-store run that stopped part-way had done: the rows it changed and
    committed, whether it resumed earlier runs, and its backup file (None: --no-backup)."""

    committed: int
    resumed: bool
    backup: str | None


def stopped_run(exc: BaseException) -> StoppedRun | None:
    """What the run ``exc`` stopped had committed (None: not a run's stop)."""
    found = getattr(exc, _STOPPED, None)
    return found if isinstance(found, StoppedRun) else None


class _Run:
    """One shard's run in progress: its report, backup writer and what it committed."""

    def __init__(self, store: ServerStore, report: ServerReport, writer: BackupWriter | None,
                 backups: dict[str, int]) -> None:
        self.store, self.report, self.writer = store, report, writer
        self.backups = backups  # backup file id -> records written before their rows changed
        self.committed = 0  # rows this process changed
        self.stalled = False  # a row could not be read (cannot decrypt): progress stops there

    def checkpoint(self, position: Any, done: bool) -> Checkpoint:
        writer = self.writer
        if writer is not None and writer.id is not None:
            self.backups[writer.id] = writer.records
        return Checkpoint(position, done, self.report.model_dump(mode="json"),
                          dict(self.backups))

    def note(self, exc: BaseException) -> BaseException:
        """``exc``, carrying what this run committed (:func:`stopped_run` reads it)."""
        writer = self.writer
        setattr(exc, _STOPPED, StoppedRun(self.committed, self.report.resumed,
                                         None if writer is None else str(writer.path)))
        return exc

    def stopped(self, exc: OSError) -> OSError | StoreRefusal:
        """The error for a run that a full disk (or another I/O error) stopped part-way."""
        writer, report = self.writer, self.report
        if writer is None or (not self.committed and not report.resumed):
            return exc  # the store is unchanged: "nothing was written"
        path = str(writer.path)
        earlier = " (and the runs it resumed changed more)" if report.resumed else ""
        return StoreRefusal(
            f"{exc.filename or path}: {exc.strerror or exc}: the run stopped part-way; it had "
            f"changed and committed {self.committed} rows{earlier}, each with its old value in "
            f"the backup file {path}. Make room, then run the same command with --resume to "
            f"go on, or --restore {path} to put them back")


def _outcome(store: ServerStore, rule: Callable[[Row], RowOutcome], row: Row) -> RowOutcome:
    """The rule's outcome for ``row``; a NULL cell, bytes the column's character set would
    change, or a row too long for its column: reported and left as they are."""
    if row.value is None:
        return NULL_ROW
    reason = foreign_bytes(store, row.value)
    if reason is not None:
        return RowOutcome.invalid(reason)
    return within_capacity(store, rule(row))


def _run_batch(run: _Run, batch: Batch, rule: Callable[[Row], RowOutcome]) -> None:
    """Migrate one batch (``run.stalled``: progress has stalled, here or earlier)."""
    store, report, writer = run.store, run.report, run.writer
    changes: list[Change] = []
    outcomes: list[RowOutcome] = []
    for row in batch.rows:
        outcome = _outcome(store, rule, row)
        run.stalled = run.stalled or outcome.unreadable
        if outcome.new is None:
            report.count_row(row, outcome)
        else:
            changes.append(Change(row, outcome.new))
            outcomes.append(outcome)
    report.batches += 1
    if changes and writer is not None:
        writer.write([(key_json(change.row.key), change.row.session_id, change.row.value,
                       change.new) for change in changes if change.row.value is not None])
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
        return run.checkpoint(batch.position, False)

    with _WRITING:  # a stop waits until the batch is written and counted
        if run.stalled:
            written = store.commit(changes, None)
            settle(written)  # counted; the checkpoint it returns is not saved
        else:
            written = store.commit(changes, settle)
        run.committed += sum(written)


def restore(store: SwapRows, options: MigrateOptions,
            backups: Sequence[str]) -> RestoreReport:
    """Put back the old values of ``backups`` wherever a row of ``store`` (closed here)
    still holds the new one.

    Every file is checked first (:func:`verify_backup`: its records' digests, and
    that it is a backup of this store, unless ``force``), so a damaged, edited or
    foreign file is refused before anything is written; a restore is refused as
    well while a run migrates the store. The records are then read from the last
    to the first, a batch at a time, so memory does not grow with the file, and
    a row backed up twice ends up with its oldest value. The store's checkpoints
    and local records are then forgotten (``--resume`` starts over), unless
    records or files are missing.
    """
    try:
        report = RestoreReport(path=store.where, backups=list(backups), dry_run=options.dry_run)
        checked = [verify_backup(path) for path in backups]
        for backup in checked:
            refuse_foreign(store, backup, options.force)
        running = getattr(store, "refuse_if_running", None)
        if running is not None:
            running()
        # A dry run reaches here for server stores only (a file store's is refused).
        rows: Any = _Compare(cast(ServerStore, store)) if options.dry_run else store
        # The newest file first, as the newest record in a file: each row its oldest value.
        for backup in newest_first(checked):
            _restore_file(rows, backup, options.batch_size, report)
        _unrestored_files(store, checked, report)
        if report.missing or report.files_missing:
            report.warnings.append("the store's migration state is kept, to check the "
                                   "complete backup file against: restore from it too")
        elif not options.dry_run:
            _forget(store, options, ForgetReport(path=store.where))
        return report
    finally:
        store.close()


class _Compare:
    """A store whose ``commit`` only compares (a dry run's restore): whether each row holds
    the value a change expects, nothing written."""

    def __init__(self, store: ServerStore) -> None:
        self.store = store
        self.where = store.where

    def commit(self, changes: Sequence[Change], settle: Any) -> list[bool]:
        return self.store.holds(changes)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


_FAMILIES = {"sqlite": "sqlite", "sqlalchemy-sqlite": "sqlite"}


def newest_first(backups: Sequence[Backup]) -> list[Backup]:
    """The files from the newest to the oldest by their ``created`` time (to the
    microsecond), ties broken by the file's id: the same order however they were
    named on the command line."""
    return sorted(backups, key=lambda b: (str(b.header.get("created", "")), str(b.id)),
                  reverse=True)


def refuse_dry_run(options: MigrateOptions) -> None:
    """A restore writes: with ``dry_run`` it is refused (StoreError) before anything is
    read or written."""
    if options.dry_run:
        raise StoreError("--restore writes the rows back; it takes no --dry-run (nothing "
                         "was written)")


def refuse_foreign(store: Any, backup: Backup, force: bool) -> None:
    """Refuse (StoreError) the backup of another store, unless ``force``: its header's
    ``identity`` (a SQLite file's real path and table, a server's host, port,
    database and table or key prefix) or, for files written before identities,
    its kind of store. A file without digests (its records cannot be checked) is refused
    as well, unless ``force``."""
    header = backup.header
    if not backup.checked and not force:
        raise StoreError(f"{backup.path}: the backup carries no digests (a development "
                         "build's file, or its header was edited), so its records cannot "
                         "be checked; nothing was restored (--force restores it unchecked)")
    mine, theirs = getattr(store, "identity", None), header.get("identity")
    if mine is not None and isinstance(theirs, str):
        same = mine == theirs or same_file(str(mine), theirs)
    else:
        kind = str(header.get("kind"))
        same = _FAMILIES.get(kind, kind) == _FAMILIES.get(store.kind, store.kind)
        theirs = f"{header.get('store')} ({kind})"
    if not same and not force:
        raise StoreError(f"{backup.path}: is the backup of {theirs}, not of this store "
                         f"({mine or store.kind}); nothing was restored (--force restores it "
                         "all the same, row by row where the rows still hold its new values)")


def _forget(store: SwapRows, options: MigrateOptions, report: ForgetReport
            ) -> ForgetReport:
    """Clear the store's checkpoints and local records (a dry run: count them only)."""
    dry = report.dry_run = options.dry_run
    clear = getattr(store, "count_checkpoints" if dry else "forget_checkpoints", None)
    report.checkpoints += clear() if clear is not None else 0
    report.local_records += forget_backups(_scope(store, options, Shard()).rsplit("|", 1)[0],
                                           dry_run=dry)
    return report


def _checkpoint_of(store: SwapRows, backup: Backup) -> Checkpoint | None:
    index, _, count = str(backup.header.get("shard", "0/1")).partition("/")
    try:
        return store.load_checkpoint(Shard(int(index), int(count)))
    except ValueError:
        return None


def _written_before(store: SwapRows, backup: Backup) -> int | None:
    """How many records of ``backup`` the store's checkpoint says were written before their
    rows changed (None: the store no longer records the file, or it has no id)."""
    if backup.id is None:
        return None
    checkpoint = _checkpoint_of(store, backup)
    return None if checkpoint is None else checkpoint.backups.get(backup.id)


def _unrestored_files(store: SwapRows, restored: list[Backup], report: RestoreReport
                      ) -> None:
    """Backup files the store's checkpoints record for these shards, with records whose
    rows may have changed, that were not restored (a run killed while writing one,
    resumed with another ``--backup-file``): their rows stay migrated."""
    ids = {backup.id for backup in restored}
    shards = {str(backup.header.get("shard", "0/1")): backup for backup in restored}
    for backup in shards.values():
        checkpoint = _checkpoint_of(store, backup)
        if checkpoint is None:
            continue
        for other, count in checkpoint.backups.items():
            if other not in ids and count > 0:
                report.files_missing += 1
                report.warnings.append(
                    f"the store's checkpoint of shard {backup.header.get('shard')} records "
                    f"another backup file (id {other}, {count} records) that was not "
                    "restored: its rows stay migrated; restore it too (every file the runs "
                    "wrote, --restore once for each)")


def unclosed_file(backup: Backup, restored: int, report: RestoreReport) -> None:
    """Check a file store's backup for its closing record (written and fsynced before the
    store changes): a file without one whose rows the store holds migrated (``restored``
    of them put back) is a copy cut short, its missing records counted (at least one)."""
    if not file_store_run(backup.header) or backup.closed:
        return
    if restored:
        report.missing += 1
        report.warnings.append(
            f"{backup.path}: the closing record is missing, and the store holds rows this run "
            f"changed: the file is a copy cut short (it holds {backup.count} records); the "
            "rows it holds are restored, the others stay migrated: restore from the complete "
            "file too")
    else:
        report.warnings.append(
            f"{backup.path}: no closing record: its run stopped before it changed the store; "
            "nothing of it to put back")


def _restore_file(store: SwapRows, backup: Backup, size: int, report: RestoreReport) -> None:
    if backup.torn is not None:
        report.warnings.append(backup.torn)
    restored_before = report.restored
    expected = _written_before(store, backup)
    if expected is not None and expected > backup.count:
        lost = expected - backup.count
        report.missing += lost
        report.warnings.append(
            f"{backup.path}: {lost} records are missing: the store's checkpoint says "
            f"{expected} were written to this file before their rows changed, and it holds "
            f"{backup.count} (a copy cut short?); the rows it holds are restored, "
            "the others stay migrated")
    # Newest first, should a row appear twice (a batch backed up by a killed run, then
    # again by its resume; or a second run into the same file): the oldest record's
    # ``old`` is what ends up in the row. A batch never holds one row twice, so a store
    # that reads a batch's rows at once compares each with what the newer record left.
    chunk: list[Change] = []
    keys: set[tuple[Any, ...]] = set()
    for record in backup.newest_first():
        key = store.row_key(record.key)
        if len(chunk) >= size or key in keys:
            _restore_chunk(store, chunk, report)
            chunk, keys = [], set()
        chunk.append(Change(Row(key, record.session_id, record.new), record.old))
        keys.add(key)
    _restore_chunk(store, chunk, report)
    unclosed_file(backup, report.restored - restored_before, report)


def _restore_chunk(store: SwapRows, chunk: list[Change], report: RestoreReport) -> None:
    if not chunk:
        return
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
