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
machine). The backup file's format is ``backup``'s; ``restore`` writes each
row's old bytes back where the row still holds the new ones, and forgets the
checkpoints (``restore``). A resume finds its backup as ``_backup_path`` says, never at a
path read from the store.
"""

from __future__ import annotations

import contextlib
import os
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from multiprocessing import active_children, get_context
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..rule import NULL_ROW, EncryptedRule, Row, RowOutcome
from ._capacity import foreign_bytes, within_capacity
from ._state import ensure_state_dir, record_backup, recorded_backup
from ._urls import mask_url
from ._workers import die_with_parent
from .backup import BackupWriter, key_json
from .base import Store, for_workers
from .errors import StoreError, StoreRefusal, classify
from .options import MigrateOptions
from .report import BackupRestoreReport, ForgetReport, PlaceholderReport, ServerReport
from .restore import forget, restore, state_scope
from .row_access import Batch, Change, Checkpoint, RowAccess, Shard

__all__ = ["OnlineStore", "StoppedRun", "named_backup_files", "stop_when_written", "stopped_run"]

# A per-row rule in place of the codec's (a benchmark's floor): a row to its outcome.
RowRuleHook = Callable[[Row], RowOutcome]


class OnlineStore(Store):
    """The base of the server backends: a store migrated online, in batches, by shard.

    A backend is one subclass. Opened, it holds its URL, options and client;
    connected (:meth:`connect`: a new instance of the same class, through a new
    connection unless a client was given), it is the store's :class:`RowAccess`:
    it reads rows in batches and writes them by compare-and-swap. The run, its
    backup file, checkpoints, restore and forget are the same for every server store.
    """

    kind = "server"

    def __init__(self, url: str, options: MigrateOptions, client: Any = None, *,
                 where: str | None = None) -> None:
        self.url, self.options, self.client = url, options, client
        self.where = where or mask_url(url)

    @abstractmethod
    def open_rows(self) -> None:
        """Connect: make this instance the store's row access (a backend's own)."""

    @classmethod
    def connect_rows(cls, url: str, options: MigrateOptions, client: Any = None
                     ) -> RowAccess:
        """A connected instance, its errors worded for the user, its URL masked."""
        store = cls(url, options, client)
        try:
            store.open_rows()
        except StoreError as exc:
            raise classify(exc, url) from None
        store.where = mask_url(store.where)
        return cast(RowAccess, store)

    def connect(self) -> RowAccess:
        """The store's rows (batches, compare-and-swap), through a new connection."""
        return self.connect_rows(self.url, self.options, self.client)

    def migrate(self, rule: RowRuleHook | None = None) -> ServerReport:
        """Run one shard (``options.shard``), or ``options.workers`` shards in processes.

        ``rule`` replaces the codec's per-row rule (a floor to measure it against),
        through the same batches, backup, compare-and-swap and checkpoints.
        """
        return run(self.url, self.options, type(self), rule)

    def restore(self, backups: Sequence[str]) -> BackupRestoreReport:
        return restore(self.connect(), self.options, backups)

    def forget(self) -> ForgetReport:
        store = self.connect()
        try:
            return forget(store, self.options, ForgetReport(path=store.where))
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
    try:
        return EncryptedRule(key, rule=rule)
    except ImportError as exc:
        raise StoreError(str(exc)) from exc


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


def run_shard(job: Job) -> ServerReport:
    """Migrate one shard of the store, resuming from its checkpoint with ``resume``."""
    rule = job.rule or _rule(job.options)
    store = job.backend.connect_rows(job.url, job.options)
    try:
        return _run_shard(store, job.options, rule)
    finally:
        store.close()


def _run_shard(store: RowAccess, options: MigrateOptions,
               rule: Callable[[Row], RowOutcome]) -> ServerReport:
    shard = options.shard
    report = ServerReport(path=store.where, store=store.kind, dry_run=options.dry_run,
                          shards=[str(shard)],
                          placeholders=PlaceholderReport() if options.restore_empty else None)
    if options.dry_run:
        return _dry_run_shard(store, options, rule, report)
    prepare = getattr(store, "prepare", None)
    if prepare is not None:
        prepare(shard)
    with store.lock(shard):
        checkpoint = _earlier_checkpoint(store, shard, options.resume)
        report, position = _resumed(store, options, checkpoint, report)
        run = _ShardRun(store, report, _backup_writer(store, options),
                        dict(checkpoint.backups) if checkpoint is not None else {})
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
            _finish(run, shard)
    return report


def _dry_run_shard(store: RowAccess, options: MigrateOptions,
                   rule: Callable[[Row], RowOutcome], report: ServerReport) -> ServerReport:
    """Count what a run of the shard would do, writing nothing (no lock, no checkpoint)."""
    sessions: set[str] = set()
    with _progress(store, options, options.shard, report) as bar:
        for batch in store.batches(None, options.batch_size, options.shard):
            report.batches += 1
            for row in batch.rows:
                report.count_row(row, _outcome(store, rule, row))
                sessions.add(row.session_id)
            bar(len(batch.rows))
    report.sessions = len(sessions)
    return report


def _resumed(store: RowAccess, options: MigrateOptions, checkpoint: Checkpoint | None,
             report: ServerReport) -> tuple[ServerReport, Any]:
    """The run's report and the position it starts from: with ``resume``, the checkpoint's
    (unless the shard had finished); else a new report, from the start."""
    shard = options.shard
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
        return _taken_over(store, options, report), checkpoint.position
    return _taken_over(store, options, report), None


def _taken_over(store: RowAccess, options: MigrateOptions, report: ServerReport
                ) -> ServerReport:
    if getattr(store, "taken_over", False):
        report.warnings.append(
            f"the lock of shard {options.shard} was held by a pod of the same Job (the same "
            f"Job uid, index and layout: {options.job_id}); taken over")
    return report


def _backup_writer(store: RowAccess, options: MigrateOptions) -> BackupWriter | None:
    """The writer of the shard's backup file (None: ``--no-backup``)."""
    if not options.backup:
        return None
    scope = state_scope(store, options, options.shard)
    backup, _ = _backup_path(options, scope)
    header = {"store": store.where, "kind": store.kind, "shard": str(options.shard),
              "identity": getattr(store, "identity", store.where)}
    return BackupWriter(backup, header, append=options.resume,
                        on_create=lambda path: record_backup(scope, path))


def _finish(run: _ShardRun, shard: Shard) -> None:
    """After the last batch: the sessions of a resumed run, and the final checkpoint (none
    past a row that could not be read)."""
    store, report = run.store, run.report
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


@contextlib.contextmanager
def _progress(store: RowAccess, options: MigrateOptions, shard: Shard,
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


def _earlier_checkpoint(store: RowAccess, shard: Shard, resume: bool) -> Checkpoint | None:
    """The shard's checkpoint: to resume from, or (a new run) for the backup files it
    records, which the new run's checkpoint carries on. A new run passes over a
    checkpoint it cannot read."""
    try:
        return store.load_checkpoint(shard)
    except ValueError:
        if resume:
            raise _unreadable(store, shard) from None
        return None


def _unreadable(store: RowAccess, shard: Shard) -> StoreError:
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


class _ShardRun:
    """One shard's run in progress: its report, backup writer and what it committed."""

    def __init__(self, store: RowAccess, report: ServerReport, writer: BackupWriter | None,
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


def _outcome(store: RowAccess, rule: Callable[[Row], RowOutcome], row: Row) -> RowOutcome:
    """The rule's outcome for ``row``; a NULL cell, bytes the column's character set would
    change, or a row too long for its column: reported and left as they are."""
    if row.value is None:
        return NULL_ROW
    reason = foreign_bytes(store, row.value)
    if reason is not None:
        return RowOutcome.invalid(reason)
    return within_capacity(store, rule(row))


def _run_batch(run: _ShardRun, batch: Batch, rule: Callable[[Row], RowOutcome]) -> None:
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
