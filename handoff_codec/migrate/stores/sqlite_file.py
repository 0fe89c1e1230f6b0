"""Migrate an Agents SDK ``SQLiteSession`` database in place.

The schema is ``SQLiteSession``'s: a sessions table and a messages table whose
``message_data`` column holds one JSON item per row. Rows are addressed by
``rowid`` (for a ``WITHOUT ROWID`` table, its single-column integer primary
key), never by a column that may repeat or be NULL. A real run is one
transaction::

    BEGIN IMMEDIATE            -- other writers wait
    SELECT ... WHERE rowid > ? ORDER BY rowid LIMIT ?   -- batch after batch
    (each changed row's old and new bytes appended to the backup file)
    UPDATE ... WHERE rowid = ?    -- only rows whose message_data changes
    (the backup's closing record, fsynced)
    COMMIT                     -- or ROLLBACK when nothing changed

so a process killed at any point leaves the old database or the new one, as
SQLite's journal guarantees. The backup is the row backup every store writes
(``backup``): ``restore`` puts back, by compare-and-swap through the standard
library's ``sqlite3`` (``SQLiteFileStore.restore``), each row that still holds what the
run wrote, and leaves every other row (an agent's, written since) as it is.

A dry run opens the file read-only and reads it in one read transaction: one
snapshot, whatever other processes write. It reads the file as immutable (so
that SQLite creates no ``-wal`` and ``-shm`` files beside it) only when it is a
WAL database that ``/proc`` shows no process has open, and it checks afterwards
that the file did not change.

With ``workers`` above 1, worker processes apply the per-row rule to the
rows that may hold a summary, beside this process; this process alone reads,
counts and writes, batch by batch in key order, in the same transaction.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple
from urllib.parse import quote

from ..rule import RowOutcome
from ._files import (
    check_is_file,
    is_sqlite_file,
    killed_run_notes,
    open_by_others,
    refuse_read_only,
    sqlite_identity,
    stopped_before_change,
    undo_failed_run,
)
from ._workers import RuleWorkers, apply_rule
from .backup import BackupWriter, file_backup, remove_killed_backups
from .base import FileStore, Store, backend_for_scheme, register_store
from .errors import StoreError, StoreRefusal
from .options import MigrateOptions
from .report import BackupRestoreReport, ProgressFactory, StoreReport
from .restore import refuse_dry_run, restore
from .row_access import Change, Checkpoint, Settle

__all__ = ["SQLiteFileStore"]

_CHECKPOINTS = "handoff_codec_checkpoints"  # the table a sqlite:/// run keeps its checkpoints in


def _quote_identifier(name: str) -> str:
    if not name or "\x00" in name:
        raise StoreError(f"invalid table name {name!r}")
    return '"' + name.replace('"', '""') + '"'


def _connect(path: Path, mode: str, timeout: float, *, immutable: bool = False
             ) -> sqlite3.Connection:
    uri = f"file:{quote(os.fsencode(path.resolve()))}?mode={mode}"
    if immutable:
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def _closed_wal_database(path: Path) -> bool:
    """A WAL-mode database that provably no process has open.

    A read-only connection to such a file would create empty ``-wal`` and
    ``-shm`` files and leave them behind; reading it as immutable creates none.
    Immutable reads of a file someone writes return garbage, so the proof is
    ``/proc``: every process's descriptors were seen and none is this file's.
    """
    try:
        with path.open("rb") as file:
            header = file.read(20)
    except OSError:
        return False
    if header[18:20] != b"\x02\x02" or path.with_name(path.name + "-wal").exists():
        return False
    holders = open_by_others(path)
    return holders.complete and not holders.readers and not holders.writers


def _stamp(path: Path) -> tuple[int, int, int, bool]:
    info = path.stat()
    return info.st_ino, info.st_size, info.st_mtime_ns, path.with_name(
        path.name + "-wal").exists()


class _Table(NamedTuple):
    messages: str  # quoted identifiers
    sessions: str
    key: str  # the SQL expression that addresses one row


def _check_schema(conn: sqlite3.Connection, sessions_table: str, messages_table: str
                  ) -> _Table:
    for table, flag in ((sessions_table, "--sessions-table"),
                        (messages_table, "--messages-table")):
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        if found is None:
            raise StoreError(f"no table {table!r} (not a SQLiteSession database? see {flag})")
    messages = _quote_identifier(messages_table)
    columns = {row[1].lower(): row for row in conn.execute(f"PRAGMA table_xinfo({messages})")}
    if "message_data" not in columns:
        raise StoreError(f"table {messages_table!r} has no column message_data")
    key = _row_key(conn, messages, columns)
    if key is None:
        raise StoreRefusal(f"table {messages_table!r} has no rowid and no single-column "
                           "integer primary key, so its rows cannot be addressed one by one; "
                           "nothing was written")
    return _Table(messages, _quote_identifier(sessions_table), key)


def _row_key(conn: sqlite3.Connection, messages: str, columns: dict[str, Any]) -> str | None:
    """``rowid`` (under a name no column shadows), or a WITHOUT ROWID table's integer key."""
    for alias in ("rowid", "_rowid_", "oid"):
        if alias in columns:
            continue
        try:
            conn.execute(f"SELECT {alias} FROM {messages} LIMIT 0")
        except sqlite3.OperationalError:
            break  # a WITHOUT ROWID table
        return alias
    primary = [row for row in columns.values() if row[5] > 0]
    if len(primary) == 1 and "INT" in (primary[0][2] or "").upper():
        return _quote_identifier(primary[0][1])
    return None


def _hot_journal(db: Path, exc: sqlite3.Error) -> StoreRefusal | None:
    journal = db.with_name(db.name + "-journal")
    if "readonly" not in str(exc) or not journal.exists():
        return None
    return StoreRefusal(
        f"{db}: {journal.name} is a hot journal left by a write that was interrupted; a "
        "read-only dry run cannot roll it back. Open the database read-write once (start "
        f"the application, or run: sqlite3 {db} 'PRAGMA quick_check'), then run the dry "
        "run again")


class _TableScan:
    """One scan of the messages table, in one transaction (one snapshot)."""

    def __init__(self, db: Path, options: MigrateOptions) -> None:
        self.db, self.dry_run, self.backup = db, options.dry_run, options.backup
        self.batch_size, self.timeout = options.batch_size, options.timeout
        self.rule = options.rule()
        self.workers = options.workers
        self.options = options
        self.writer: BackupWriter | None = None

    def connect(self, immutable: bool) -> sqlite3.Connection:
        try:
            return _connect(self.db, "ro" if self.dry_run else "rw", self.timeout,
                            immutable=immutable)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.db}: cannot open: {exc}") from None

    def run(self, conn: sqlite3.Connection, report: StoreReport, tables: tuple[str, str],
            progress: ProgressFactory | None) -> None:
        try:
            table = _check_schema(conn, *tables)
        except sqlite3.DatabaseError as exc:
            if self.dry_run and (hot := _hot_journal(self.db, exc)) is not None:
                raise hot from None
            if isinstance(exc, sqlite3.OperationalError):  # locked, disk full, I/O error
                raise StoreRefusal(f"{self.db}: {exc}; nothing was written") from None
            raise StoreError(f"{self.db}: {exc}") from None
        conn.execute("BEGIN" if self.dry_run else "BEGIN IMMEDIATE")
        if not self.dry_run:  # the write lock is ours: no other run writes a backup now
            report.warnings += killed_run_notes(remove_killed_backups(
                self.db, sqlite_identity(self.db, self.options.messages_table)))
        try:
            report.sessions = conn.execute(f"SELECT count(*) FROM {table.sessions}").fetchone()[0]
            total = conn.execute(f"SELECT count(*) FROM {table.messages}").fetchone()[0]
            bar = progress(total, "rows") if progress else None
            try:
                self.scan(conn, table, report, bar)
            finally:
                if bar is not None:
                    bar.close()
            if report.written and self.writer is not None:
                self.writer.close_segment()  # every record fsynced before the commit
            conn.execute("COMMIT" if report.written else "ROLLBACK")
        except OSError as exc:  # the backup's disk is full, or fails
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            undo_failed_run(report, self.writer, self.db, "store")
            raise stopped_before_change(exc, self.db, "store", "partial backup is") from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            undo_failed_run(report, self.writer, self.db, "store")
            raise
        finally:
            if self.writer is not None:
                self.writer.close()

    def scan(self, conn: sqlite3.Connection, table: _Table, report: StoreReport,
             bar: Any) -> None:
        conn.text_factory = bytes  # read every cell as it is stored, UTF-8 or not
        update = f"UPDATE {table.messages} SET message_data = ? WHERE {table.key} = ?"
        self.table = table
        if self.workers <= 1:
            for rows in self.batches(conn, table):
                passed, todo = self.triage(rows)
                outcomes = apply_rule(self.rule, [data for _, _, data in todo])
                self.finish(conn, update, report, len(rows), passed, todo, outcomes, bar)
            return
        with RuleWorkers(self.workers, self.rule) as decoders:
            pending: deque[tuple[int, int, list[_Todo], list[Any]]] = deque()
            for rows in self.batches(conn, table):
                passed, todo = self.triage(rows)
                pending.append((len(rows), passed, todo, decoders.submit(
                    [data for _, _, data in todo])))
                # Finish the batches whose rows are all read, in order; hold at most
                # _AHEAD of them (while the worker processes start, the parent reads on).
                while pending and (len(pending) > _AHEAD or RuleWorkers.done(pending[0][3])):
                    self.finish(conn, update, report, *RuleWorkers.ready(pending.popleft()),
                                bar)
            while pending:
                self.finish(conn, update, report, *RuleWorkers.ready(pending.popleft()), bar)

    def batches(self, conn: sqlite3.Connection, table: _Table) -> Iterator[list[Any]]:
        """The rows, batch after batch, in key order: (key, message_data, its type)."""
        columns = f"{table.key}, message_data, typeof(message_data)"
        first = f"SELECT {columns} FROM {table.messages} ORDER BY {table.key} LIMIT ?"
        after = (f"SELECT {columns} FROM {table.messages} WHERE {table.key} > ? "
                 f"ORDER BY {table.key} LIMIT ?")
        last: int | None = None
        while True:
            rows = (conn.execute(first, (self.batch_size,)) if last is None
                    else conn.execute(after, (last, self.batch_size))).fetchall()
            if not rows:
                return
            yield rows
            last = _advance(last, rows[-1][0], self.db)

    def triage(self, rows: list[Any]) -> tuple[int, list[_Todo]]:
        """How many rows are passed over unread, and the others, for the rule.

        A number is not an item; a UTF-8 row holding neither the marker nor a
        ``\\u`` escape is passed over as the rule would pass it (counted as scanned).
        ``data`` is None for a NULL cell.
        """
        needle = self.rule.prefilter.plain_needle
        todo: list[_Todo] = []
        passed = 0
        for key, data, kind in rows:
            if kind == b"text" or kind == b"blob":
                if needle is not None and needle not in data and b"\\u" not in data:
                    if data.isascii():
                        passed += 1
                        continue
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError:
                        pass  # the rule says why
                    else:
                        passed += 1
                        continue
                todo.append((key, kind, data))
            elif data is None:
                todo.append((key, kind, None))
            else:
                passed += 1
        return passed, todo

    def finish(self, conn: sqlite3.Connection, update: str, report: StoreReport,
               scanned: int, passed: int, todo: list[_Todo], outcomes: list[RowOutcome],
               bar: Any) -> None:
        """Count a batch's outcomes in key order, and write its changed rows."""
        count = report.count
        changes: list[tuple[Any, int]] = []
        records: list[tuple[list[Any], bytes, bytes]] = []
        for (key, kind, data), outcome in zip(todo, outcomes, strict=True):
            count(outcome, key)
            if outcome.new is not None:  # TEXT stays TEXT, BLOB stays BLOB
                changes.append((outcome.new.decode("utf-8") if kind == b"text"
                                else outcome.new, key))
                records.append(([key], data or b"", outcome.new))
        report.rows_scanned += passed
        if changes and not self.dry_run:
            if self.backup:
                self.back_up(conn, report, records)
            conn.executemany(update, changes)
            report.written = True
        if bar is not None:
            bar.update(scanned)


    def back_up(self, conn: sqlite3.Connection, report: StoreReport,
                records: list[tuple[list[Any], bytes, bytes]]) -> None:
        """Append a batch's changed rows to the backup (fsynced before the commit)."""
        table = self.table
        if self.writer is None:
            self.writer = file_backup(self.db, self.options, "sqlite", sqlite_identity(
                self.db, self.options.messages_table))
        keys = [key for (key,), _, _ in records]
        sessions: dict[Any, Any] = {}
        for start in range(0, len(keys), 900):  # within SQLite's oldest limit on parameters
            chunk = keys[start:start + 900]
            sessions.update(conn.execute(
                f"SELECT {table.key}, session_id FROM {table.messages} WHERE {table.key} IN "
                f"({','.join('?' * len(chunk))})", chunk).fetchall())
        self.writer.write([(key, _text(sessions.get(key[0])), old, new)
                           for key, old, new in records], sync=False)
        report.backup = str(self.writer.path)


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return "" if value is None else str(value)


_Todo = tuple[Any, bytes, "bytes | None"]  # a row for the rule: key, type, message_data
_AHEAD = 8  # batches read ahead of the oldest one not finished, with workers


def _advance(last: int | None, key: Any, db: Path) -> int:
    """The scan's next key; stop when it does not advance (a scan must never repeat)."""
    if not isinstance(key, int) or (last is not None and key <= last):
        raise StoreRefusal(f"{db}: the row scan did not advance (key {key!r} after {last!r}); "
                           "stopped, and nothing was written")
    return key


def _validate(db: Path) -> None:
    check_is_file(db)
    if not is_sqlite_file(db):
        raise StoreError(f"{db}: not a SQLite database")


def migrate_sqlite(path: str | os.PathLike[str], *, options: MigrateOptions | None = None,
                   **keywords: Any) -> StoreReport:
    """Migrate every summary row of a ``SQLiteSession`` database.

    ``options`` (a :class:`MigrateOptions`) gives every option at once; the
    keywords are the same options one by one, for callers of 0.1.
    ``legacy_only`` leaves alone the summaries already in the current format
    whose only change would be sorted JSON keys; ``list_changes`` fills
    ``report.changed_rows``. ``restore_empty`` also empties every turn whose
    whole text is a known placeholder, in summaries and in stored items, and
    fills ``report.placeholders`` (leaks included). ``accept_ambiguous``
    rewrites ambiguous summaries as read (see ``migrate_item``). Raises
    :class:`StoreError` when the file is missing, not SQLite, or lacks the
    tables, and :class:`StoreRefusal` when the run refuses or stops;
    ``sqlite3.Error`` and ``OSError`` from a failed run propagate after the
    transaction is rolled back and the backup it made is deleted (the database
    is then unchanged).
    """
    return _migrate(Path(path), MigrateOptions.given(options, keywords, "migrate_sqlite"))


def _migrate(db: Path, options: MigrateOptions) -> StoreReport:
    dry_run = options.dry_run
    _validate(db)
    if not dry_run:
        refuse_read_only(db)
    run = _TableScan(db, options)
    tables = (options.sessions_table, options.messages_table)
    immutable = dry_run and _closed_wal_database(db)
    while True:
        report = StoreReport.start(str(db), "sqlite", options)
        before = _stamp(db) if immutable else None
        conn = run.connect(immutable)
        try:
            run.run(conn, report, tables, options.progress)
        finally:
            conn.close()
        if before is None or (_stamp(db) == before and _closed_wal_database(db)):
            return report
        immutable = False  # someone opened or wrote the file meanwhile: read it again


@register_store
class SQLiteFileStore(FileStore):
    """A ``SQLiteSession`` database, migrated whole in one transaction.

    Its restore writes through the standard library's ``sqlite3`` (no SQLAlchemy),
    row by row by compare-and-swap: each ``commit`` is one ``BEGIN IMMEDIATE``
    transaction; a row is written only if its bytes are still the ones expected, in
    its own storage class (TEXT stays TEXT, BLOB stays BLOB). The WAL, when there is
    one, is part of the database SQLite opens: nothing is copied or moved, so an
    application's ``-wal`` file is never replayed over restored rows.
    """

    file_kinds: ClassVar[tuple[str, ...]] = ("sqlite",)
    kind = "sqlite"

    @classmethod
    def open_file(cls, path: Path, options: MigrateOptions) -> Store:
        """The file; with ``encryption_key_env``, as the SQL backend reads its
        ``EncryptedSession(SQLiteSession(...))`` rows, one by one by ``sqlite:///``."""
        if options.encryption_key_env is None:
            return cls(str(path), options)
        backend = backend_for_scheme("sqlite")
        if backend is None:  # pragma: no cover - registered with the package
            raise StoreError(f"{path}: encrypted rows are read through the SQL backend, "
                             "which is not registered")
        store = backend(f"sqlite:///{path.resolve()}", options)
        store.where = str(path)
        return store

    def migrate(self) -> StoreReport:
        return _migrate(self.path, self.options)

    def restore(self, backups: Sequence[str]) -> BackupRestoreReport:
        """Put back the rows of ``backups`` (this file's runs, its ``sqlite:///`` URL's,
        ``UpgradingSession`` write-back), through the standard library's sqlite3."""
        _validate(self.path)
        refuse_dry_run(self.options)
        self._open_rows()
        return restore(self, self.options, backups)

    # -- the row access of a restore (SwapRows) -----------------------------------

    def _open_rows(self) -> None:
        path, options = self.path, self.options
        refuse_read_only(path)
        self.identity = sqlite_identity(path, options.messages_table)
        self._conn = _connect(path, "rw", options.timeout)
        try:
            table = _check_schema(self._conn, options.sessions_table, options.messages_table)
        except BaseException:
            self._conn.close()
            raise
        self._update = (
            f"UPDATE {table.messages} SET message_data = CASE typeof(message_data) "
            "WHEN 'blob' THEN CAST(?1 AS BLOB) ELSE CAST(?1 AS TEXT) END "
            f"WHERE {table.key} = ?2 AND CAST(message_data AS BLOB) = ?3")

    def refuse_if_running(self) -> None:
        """Refuse (StoreRefusal) while another process holds the write lock past the busy
        timeout (a migration holds it for its whole run)."""
        self._begin()
        self._conn.execute("ROLLBACK")

    def _begin(self) -> None:
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreRefusal(f"{self.where}: {exc}: another process holds its write lock "
                               "(a migration running?); nothing more was written") from None

    def commit(self, changes: Sequence[Change], settle: Settle | None) -> list[bool]:
        if not changes:
            return []
        self._begin()
        try:
            written = [self._conn.execute(self._update, (c.new, c.row.key[0], c.row.value)
                                          ).rowcount == 1 for c in changes]
            self._conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            raise
        return written

    def load_checkpoint(self, shard: Any) -> Checkpoint | None:
        """The checkpoint a ``sqlite:///`` run of this file keeps in it (a file store's run
        is one transaction and keeps none): it counts the records each backup file held
        before its rows changed, so a copy cut short is found by either path."""
        try:
            row = self._conn.execute(
                f"SELECT state FROM {_CHECKPOINTS} WHERE messages_table = ? AND shard = ?",
                (self.options.messages_table, str(shard))).fetchone()
        except sqlite3.OperationalError:
            return None  # no checkpoint table: no run through the URL
        return None if row is None else Checkpoint.loads(row[0])

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]:
        return (int(key[0]),)

    def close(self) -> None:
        self._conn.close()
