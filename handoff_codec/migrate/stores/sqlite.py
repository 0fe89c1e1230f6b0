"""Migrate an Agents SDK ``SQLiteSession`` database in place.

The schema is ``SQLiteSession``'s: a sessions table and a messages table whose
``message_data`` column holds one JSON item per row, keyed by ``id``. A real
run is one transaction::

    BEGIN IMMEDIATE            -- other writers wait; readers go on
    (backup copy, through a second connection, before the first UPDATE)
    SELECT ... WHERE id > ? ORDER BY id LIMIT ?   -- batch after batch
    UPDATE ... WHERE id = ?    -- only rows whose message_data changes
    COMMIT                     -- or ROLLBACK when nothing changed

so a process killed at any point leaves the old database or the new one, as
SQLite's journal guarantees. A dry run opens the file read-only (as immutable
when it is a WAL database nobody has open, so that SQLite creates no ``-wal``
and ``-shm`` files beside it).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .._items import migrate_value
from . import ProgressFactory, StoreError, StoreReport, backup_path, dumps_like, fsync_dir

if TYPE_CHECKING:
    from ..._codec import Codec

__all__ = ["SQLITE_HEADER", "is_sqlite_file", "migrate_sqlite"]

SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_BATCH = 1000


def is_sqlite_file(path: Path) -> bool:
    """Whether ``path`` starts with the SQLite database header."""
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _quote_identifier(name: str) -> str:
    if not name or "\x00" in name:
        raise StoreError(f"invalid table name {name!r}")
    return '"' + name.replace('"', '""') + '"'


def _connect(path: Path, mode: str, timeout: float, *, immutable: bool = False
             ) -> sqlite3.Connection:
    uri = f"file:{quote(str(path.resolve()))}?mode={mode}"
    if immutable:
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def _closed_wal_database(path: Path) -> bool:
    """A WAL-mode database that no connection has open (it has no ``-wal`` file).

    A read-only connection to such a file would create empty ``-wal`` and
    ``-shm`` files and leave them behind; reading it as immutable creates none.
    """
    try:
        with path.open("rb") as file:
            header = file.read(20)
    except OSError:
        return False
    in_wal_mode = header[18:20] == b"\x02\x02"
    return in_wal_mode and not path.with_name(path.name + "-wal").exists()


def _check_schema(conn: sqlite3.Connection, sessions_table: str, messages_table: str) -> None:
    for table, flag in ((sessions_table, "--sessions-table"),
                        (messages_table, "--messages-table")):
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        if found is None:
            raise StoreError(f"no table {table!r} (not a SQLiteSession database? see {flag})")
    columns = {row[1] for row in conn.execute(
        f"PRAGMA table_info({_quote_identifier(messages_table)})")}
    missing = sorted({"id", "message_data"} - columns)
    if missing:
        raise StoreError(f"table {messages_table!r} has no column {', '.join(missing)}")


def _parse(data: Any) -> tuple[Any, str | None, str | None]:
    """(value, text, error): the JSON value of a ``message_data`` cell."""
    if data is None:
        return None, None, "message_data is NULL"
    if isinstance(data, (int, float)):
        return data, None, None
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else str(data)
    except UnicodeDecodeError as exc:
        return None, None, f"not UTF-8 (invalid byte at offset {exc.start})"
    try:
        return json.loads(text), text, None
    except json.JSONDecodeError as exc:
        return None, text, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return None, text, "invalid JSON: nested too deeply"


def _write_backup(path: Path, timeout: float) -> Path:
    """Copy the committed database with the sqlite3 backup API; return the copy's path.

    The caller holds the write lock (``BEGIN IMMEDIATE``) and has written
    nothing yet, so this second connection copies exactly the old state.
    The copy is written under a ``.partial`` name and renamed when complete.
    """
    target = backup_path(path)
    partial = target.with_name(target.name + ".partial")
    source = _connect(path, "ro", timeout)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    os.replace(partial, target)
    fsync_dir(target.parent)
    return target


def migrate_sqlite(
    path: str | os.PathLike[str],
    *,
    codec: Codec | None = None,
    dry_run: bool = False,
    backup: bool = True,
    sessions_table: str = "agent_sessions",
    messages_table: str = "agent_messages",
    batch_size: int = DEFAULT_BATCH,
    progress: ProgressFactory | None = None,
    timeout: float = 5.0,
) -> StoreReport:
    """Migrate every summary row of a ``SQLiteSession`` database.

    Raises :class:`StoreError` when the file is missing, not SQLite, or lacks
    the tables; ``sqlite3.Error`` and ``OSError`` from a failed run propagate
    after the transaction is rolled back (the database is then unchanged).
    """
    from ... import default_codec

    codec = codec or default_codec
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    db = Path(path)
    if not db.exists():
        raise StoreError(f"{db}: no such file")
    if db.is_dir():
        raise StoreError(f"{db}: is a directory")
    if not is_sqlite_file(db):
        raise StoreError(f"{db}: not a SQLite database")
    messages = _quote_identifier(messages_table)
    sessions = _quote_identifier(sessions_table)
    report = StoreReport(path=str(db), store="sqlite", dry_run=dry_run)
    try:
        if dry_run:
            conn = _connect(db, "ro", timeout, immutable=_closed_wal_database(db))
        else:
            conn = _connect(db, "rw", timeout)
    except sqlite3.Error as exc:
        raise StoreError(f"{db}: cannot open: {exc}") from None
    bar = None
    in_transaction = False
    try:
        try:
            _check_schema(conn, sessions_table, messages_table)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{db}: {exc}") from None
        if not dry_run:
            conn.execute("BEGIN IMMEDIATE")
            in_transaction = True
        report.sessions = conn.execute(f"SELECT count(*) FROM {sessions}").fetchone()[0]
        total = conn.execute(f"SELECT count(*) FROM {messages}").fetchone()[0]
        bar = progress(total, "rows") if progress else None
        select = f"SELECT id, message_data FROM {messages} WHERE id > ? ORDER BY id LIMIT ?"
        update = f"UPDATE {messages} SET message_data = ? WHERE id = ?"
        last: Any = None
        while True:
            if last is None:
                rows = conn.execute(
                    f"SELECT id, message_data FROM {messages} ORDER BY id LIMIT ?",
                    (batch_size,)).fetchall()
            else:
                rows = conn.execute(select, (last, batch_size)).fetchall()
            if not rows:
                break
            changes: list[tuple[str, Any]] = []
            for row_id, data in rows:
                report.rows_scanned += 1
                value, text, error = _parse(data)
                if error is not None:
                    report.add_invalid(row_id, error)
                    continue
                outcome = migrate_value(value, codec=codec)
                report.add(row_id, outcome, is_list=isinstance(value, list))
                if outcome.changed:
                    new = (dumps_like(text, value, outcome.value) if text is not None
                           else json.dumps(outcome.value))
                    changes.append((new, row_id))
            if changes and not dry_run:
                if backup and report.backup is None:
                    report.backup = str(_write_backup(db, timeout))
                conn.executemany(update, changes)
                report.written = True
            last = rows[-1][0]
            if bar is not None:
                bar.update(len(rows))
        if in_transaction:
            conn.execute("COMMIT" if report.written else "ROLLBACK")
            in_transaction = False
    except BaseException:
        if in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise
    finally:
        if bar is not None:
            bar.close()
        conn.close()
    return report
