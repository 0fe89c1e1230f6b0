"""Putting a store's backup files back: every backend's ``restore``, and ``forget``.

Every file is checked before anything is written (:func:`verify_backup`: its
records' digests, and that it is a backup of this store), then each row is
set back to its old bytes by compare-and-swap, only where it still holds what
the run wrote: a row changed since (an agent's write) is left as it is and
counted. A server store and a SQLite file restore through their row access
(:class:`SwapRows`); a JSONL file is rewritten line by line (``jsonl``), with
the same checks (:func:`refuse_foreign`, :func:`unclosed_file`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ..rule import Row
from ._files import same_file
from ._state import forget_backups
from .backup import Backup, file_store_run, verify_backup
from .errors import StoreError
from .options import MigrateOptions
from .report import BackupRestoreReport, ForgetReport
from .row_access import Change, Checkpoint, RowAccess, Shard, SwapRows

__all__ = ["forget", "newest_first", "refuse_dry_run", "refuse_foreign", "restore",
           "state_scope", "unclosed_file"]


def state_scope(store: SwapRows, options: MigrateOptions, shard: Shard) -> str:
    """What a backup recorded in the local state belongs to: the store, its table or
    key prefix, and the shard."""
    return "|".join((store.kind, store.where, options.messages_table, options.key_prefix,
                     str(shard)))


def restore(store: SwapRows, options: MigrateOptions,
            backups: Sequence[str]) -> BackupRestoreReport:
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
        report = BackupRestoreReport(path=store.where, backups=list(backups),
                                     dry_run=options.dry_run)
        checked = [verify_backup(path) for path in backups]
        for backup in checked:
            refuse_foreign(store, backup, options.force)
        running = getattr(store, "refuse_if_running", None)
        if running is not None:
            running()
        # A dry run reaches here for server stores only (a file store's is refused).
        rows: Any = _Compare(cast(RowAccess, store)) if options.dry_run else store
        # The newest file first, as the newest record in a file: each row its oldest value.
        for backup in newest_first(checked):
            _restore_file(rows, backup, options.batch_size, report)
        _unrestored_files(store, checked, report)
        if report.missing or report.files_missing:
            report.warnings.append("the store's migration state is kept, to check the "
                                   "complete backup file against: restore from it too")
        elif not options.dry_run:
            forget(store, options, ForgetReport(path=store.where))
        return report
    finally:
        store.close()


class _Compare:
    """A store whose ``commit`` only compares (a dry run's restore): whether each row holds
    the value a change expects, nothing written."""

    def __init__(self, store: RowAccess) -> None:
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


def forget(store: SwapRows, options: MigrateOptions, report: ForgetReport
            ) -> ForgetReport:
    """Clear the store's checkpoints and local records (a dry run: count them only)."""
    dry = report.dry_run = options.dry_run
    clear = getattr(store, "count_checkpoints" if dry else "forget_checkpoints", None)
    report.checkpoints += clear() if clear is not None else 0
    report.local_records += forget_backups(state_scope(store, options, Shard()).rsplit("|", 1)[0],
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


def _unrestored_files(store: SwapRows, restored: list[Backup], report: BackupRestoreReport
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


def unclosed_file(backup: Backup, restored: int, report: BackupRestoreReport) -> None:
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


def _restore_file(store: SwapRows, backup: Backup, size: int, report: BackupRestoreReport) -> None:
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


def _restore_chunk(store: SwapRows, chunk: list[Change], report: BackupRestoreReport) -> None:
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
