"""The SQL backend: ``SQLAlchemySession`` tables through SQLAlchemy 2 (PostgreSQL,
MySQL/MariaDB, SQLite), and a SQLite file of ``EncryptedSession`` rows by its URL.

One class, :class:`SQLAlchemyTableStore`, registered for the SQL URL schemes:
opened, it holds the URL and the options; connected (``connect``), it is the
table's row access, migrated online (``online``). SQLAlchemy is imported with
this module, and a store that needs it and finds it missing names the extra
to install.

Rows are addressed by the messages table's primary key (one integer column:
``id`` in the SDK's schema); a table without one is refused. A batch is read
with ``WHERE pk > :last ORDER BY pk LIMIT :n`` (with ``--shard K/N``: the keys and
session ids of the next ``n * N`` rows, then the data of this shard's rows among
them, by key), and written in one short transaction:

* PostgreSQL, MySQL/MariaDB: ``SELECT pk, message_data ... FOR UPDATE SKIP LOCKED``
  on the batch's changed rows, so we never wait for a writer's lock (a writer
  can wait for ours, at most one batch long, and never deadlocks with us); rows
  still holding the value read are updated; the others (changed, deleted or
  locked by a writer) are left alone and counted;
* SQLite: ``UPDATE ... WHERE pk = ? AND message_data = ?`` row by row.

The same transaction upserts the shard's checkpoint row in ``handoff_codec_checkpoints``
(created on first use), so a killed run resumes exactly after its last batch.
Two runs on one shard, or runs with different shard layouts, are kept apart by
``pg_try_advisory_lock`` / ``GET_LOCK`` (``_sql_lock``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from ..rule import Row
from ._capacity import Capacity, column_capacity, strict_mode
from ._catchup import LOWEST, PASSES, Gaps
from ._files import sqlite_identity
from ._urls import url_scheme
from .base import ApplicationEngine, register_store, unknown_options
from .errors import StoreError
from .online import OnlineStore
from .row_access import Batch, Change, Checkpoint, Position, Settle, Shard

try:
    import sqlalchemy as sa
    from sqlalchemy.dialects import mysql as sa_mysql
    from sqlalchemy.dialects import postgresql as sa_postgresql
    from sqlalchemy.engine import Connection, Engine

    from ._sql_lock import LAYOUTS, SqlLock
except ImportError as exc:  # depends on the install: a store that needs it says so
    _MISSING: ImportError | None = exc
else:
    _MISSING = None

__all__ = ["SQLAlchemyTableStore", "engine_url"]

SQL_SCHEMES = ("postgresql", "postgres", "mysql", "mariadb", "sqlite")

CHECKPOINT_TABLE = "handoff_codec_checkpoints"
_SQLITE_LOCK_TIMEOUT = 5.0  # seconds a SQLite write waits for another writer
_DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg",
            "mysql": "mysql+pymysql", "mariadb": "mysql+pymysql"}


def _need_sqlalchemy() -> None:
    """Raise ``ModuleNotFoundError`` naming the extras when SQLAlchemy is not installed."""
    if _MISSING is not None:
        raise ModuleNotFoundError("SQL stores need SQLAlchemy: pip install "
                                  "'handoff-codec[postgres]' or 'handoff-codec[mysql]'",
                                  name=_MISSING.name) from _MISSING


def engine_url(url: str) -> sa.URL:
    """The SQLAlchemy URL, with this project's drivers where none is named."""
    _need_sqlalchemy()
    parsed = sa.make_url(url)
    driver = _DRIVERS.get(parsed.drivername)
    if driver:
        parsed = parsed.set(drivername=driver)
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() not in (
            "psycopg", "psycopg2", "pg8000"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "mysql" and parsed.get_driver_name() in (
            "aiomysql", "asyncmy"):
        parsed = parsed.set(drivername="mysql+pymysql")
    if parsed.get_backend_name() == "sqlite" and parsed.get_driver_name() == "aiosqlite":
        parsed = parsed.set(drivername="sqlite")
    return parsed


# SQLAlchemy's pysqlite dialect takes these query options itself; with uri=true the
# others go into SQLite's URI, whose parameters are these (sqlite.org/uri.html).
SQLITE_OPTIONS = ("uri", "timeout", "isolation_level", "detect_types", "check_same_thread",
                  "cached_statements")
SQLITE_URI_OPTIONS = ("vfs", "mode", "cache", "psow", "nolock", "immutable", "modeof")
# SQLAlchemy's MySQL dialects fold these into the driver's ``ssl`` argument.
MYSQL_SSL_OPTIONS = ("ssl_ca", "ssl_key", "ssl_cert", "ssl_capath", "ssl_cipher",
                     "ssl_check_hostname")


def unknown_url_options(url: str) -> list[str]:
    """The query options of a SQL store URL that its driver would refuse or ignore.

    Checked without connecting: for psycopg and psycopg2 by libpq's own parser
    of connection parameters; for PyMySQL by ``pymysql.connect``'s signature
    (and the ``ssl_*`` options SQLAlchemy folds); for SQLite by the options
    SQLAlchemy's pysqlite dialect reads (it ignores any other, with a
    warning). Other drivers' options are not checked. A missing driver raises
    ``ImportError``.
    """
    parsed = engine_url(url)
    names = list(parsed.query)
    if not names:
        return []
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend == "sqlite" and driver == "pysqlite":
        uri = str(parsed.query.get("uri", "")).lower() in ("true", "1", "yes", "on")
        known = SQLITE_OPTIONS + (SQLITE_URI_OPTIONS if uri else ())
        return [name for name in names if name not in known]
    if backend == "postgresql" and driver in ("psycopg", "psycopg2"):
        return [name for name in names if not _libpq_option(driver, name)]
    if backend == "mysql" and driver == "pymysql":
        import inspect

        import pymysql  # type: ignore[import-untyped]

        known = (*inspect.signature(pymysql.connections.Connection).parameters,
                 *MYSQL_SSL_OPTIONS)
        return [name for name in names if name not in known]
    return []


def _libpq_option(driver: str, name: str) -> bool:
    """Whether libpq (through ``driver``) knows the connection parameter ``name``."""
    if driver == "psycopg":
        import psycopg

        try:
            psycopg.conninfo.make_conninfo("", **{name: "0"})
        except psycopg.ProgrammingError:
            return False
        return True
    import psycopg2  # type: ignore[import-untyped]
    import psycopg2.extensions  # type: ignore[import-untyped]

    try:
        psycopg2.extensions.make_dsn(**{name: "0"})
    except psycopg2.ProgrammingError:
        return False
    return True


def _sqlite_file(url: str) -> str | None:
    """The database file of a ``sqlite:///`` URL (None: in memory, or a URI)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0] if rest.startswith("/") else None
    return path or None


@register_store
class SQLAlchemyTableStore(OnlineStore):
    """``SQLAlchemySession`` tables (PostgreSQL, MySQL/MariaDB, SQLite), and a SQLite file
    of ``EncryptedSession`` rows opened through its ``sqlite:///`` URL: once connected,
    the messages table of ``SQLAlchemySession`` (or ``SQLiteSession``) in a database."""

    schemes: ClassVar[tuple[str, ...]] = SQL_SCHEMES
    takes_engine: ClassVar[bool] = True
    kind = "sqlalchemy"

    @classmethod
    def check_url(cls, url: str) -> None:
        unknown_options(url, unknown_url_options(url),
                        f"the {engine_url(url).get_driver_name()} driver")

    def open_rows(self) -> None:
        client = self.client
        if client is not None and not isinstance(client, ApplicationEngine):
            raise TypeError("open_store(client=...) takes a redis.Redis client only; "
                            "a SQL store takes engine=")
        if client is None and url_scheme(self.url) == "sqlite":
            path = _sqlite_file(self.url)
            if path and path != ":memory:" and not os.path.exists(path):
                raise StoreError(f"{path}: no such file")  # SQLite would create it
        self._connect(self.url, self.options.messages_table,
                      engine=None if client is None else client.engine)

    def _connect(self, url: str, messages_table: str, *, engine: Engine | None) -> None:
        """Connect to ``messages_table``: through ``engine``, an application's own (used as
        it is, never disposed here; an async engine's ``sync_engine``, inside SQLAlchemy's
        ``greenlet_spawn``), or through a new engine for ``url``."""
        _need_sqlalchemy()
        self._owns_engine = engine is None
        self._url = engine_url(url) if engine is None else engine.url
        self.where = self._url.render_as_string(hide_password=True)
        self._engine: Engine = engine or self._new_engine()
        self.dialect = self._engine.dialect.name
        self.kind = f"sqlalchemy-{self.dialect}"
        self.identity = store_identity(self._url, messages_table)
        self._fence: Callable[[Connection], None] | None = None
        self._messages_name = messages_table
        try:
            self._table, self._pk = self._reflect(messages_table)
            self._read_column(messages_table)
        except sa.exc.OperationalError as exc:
            self.close()
            raise StoreError(f"{self.where}: {exc.orig}") from None
        except BaseException:
            self.close()
            raise
        self._checkpoints = sa.Table(
            CHECKPOINT_TABLE, sa.MetaData(),
            sa.Column("messages_table", sa.String(255), primary_key=True),
            sa.Column("shard", sa.String(64), primary_key=True),
            sa.Column("state", sa.Text().with_variant(sa_mysql.LONGTEXT(), "mysql"),
                      nullable=False))

    def _new_engine(self) -> Engine:
        """An engine of this project's for ``self._url``: READ COMMITTED, text in UTF-8, and
        SQLite's writes serial (``BEGIN IMMEDIATE``, a busy timeout)."""
        options: dict[str, Any] = {"isolation_level": "READ COMMITTED"}
        if self._url.get_driver_name() in ("psycopg", "psycopg2") and \
                "client_encoding" not in self._url.query:
            # Text in UTF-8 whatever the database's encoding: a SQL_ASCII database would
            # otherwise give bytes where SQLAlchemy expects text. The rows themselves are
            # read and written as their bytes (_data_column, _new_value).
            options["connect_args"] = {"client_encoding": "utf8"}
        if self._url.get_backend_name() == "sqlite":
            options = {"connect_args": {"timeout": _SQLITE_LOCK_TIMEOUT}}
        try:
            engine = sa.create_engine(self._url, **options)
        except (ImportError, sa.exc.ArgumentError) as exc:
            raise StoreError(f"{self.where}: {exc}") from None
        if engine.dialect.name == "sqlite":
            sa.event.listen(engine, "connect", _register_sqlite_functions)
            sa.event.listen(engine, "begin", _begin_immediate)
        if engine.dialect.name == "mysql":
            sa.event.listen(engine, "connect", strict_mode)
        return engine

    def _read_column(self, messages_table: str) -> None:
        """What the ``message_data`` column holds: its limit (MySQL/MariaDB), and whether
        its rows are read and written as their bytes (PostgreSQL)."""
        self.capacity: Capacity | None = None  # the column's limit (MySQL/MariaDB)
        # PostgreSQL: the database's encoding, when the rows are read and written as
        # their bytes in it (not UTF-8 text, or a json/jsonb column); None: as text.
        self._raw_encoding: str | None = None
        if self.dialect == "mysql":
            with self._engine.connect() as conn:
                self.capacity = column_capacity(conn, messages_table, "message_data")
        if self.dialect == "postgresql":
            with self._engine.connect() as conn:
                encoding = str(conn.execute(sa.text("SHOW server_encoding")).scalar())
                conn.rollback()
            text = isinstance(self._table.c.message_data.type, sa.String)
            if encoding.upper() != "UTF8" or not text:
                self._raw_encoding = encoding

    def _reflect(self, name: str) -> tuple[sa.Table, sa.Column[Any]]:
        inspector = sa.inspect(self._engine)
        if not inspector.has_table(name):
            raise StoreError(f"{self.where}: no table {name!r} (see --messages-table)")
        table = sa.Table(name, sa.MetaData(), autoload_with=self._engine)
        for column in ("session_id", "message_data"):
            if column not in table.c:
                raise StoreError(f"{self.where}: table {name!r} has no {column!r} column")
        pk = list(table.primary_key.columns)
        if len(pk) != 1 or not isinstance(pk[0].type, sa.Integer):
            raise StoreError(f"{self.where}: table {name!r} has no single integer primary key; "
                             "rows cannot be addressed one by one, so it is not migrated")
        return table, pk[0]

    # -- reading ---------------------------------------------------------------

    def _data_column(self) -> sa.ColumnElement[Any]:
        column = self._table.c.message_data
        if self._raw_encoding is not None:
            # The bytes as stored: a json column's text as written, jsonb's as PostgreSQL
            # prints it, a SQL_ASCII database's bytes whatever they are.
            return sa.func.convert_to(sa.cast(column, sa.Text), self._raw_encoding,
                                      type_=sa.LargeBinary)
        if self.dialect == "mysql":
            return sa.cast(column, sa_mysql.BINARY())  # the bytes, whatever they are
        if self.dialect == "sqlite":
            return sa.cast(column, sa.LargeBinary)
        return column

    def _session_column(self) -> sa.ColumnElement[Any]:
        """The session id as its bytes where the server's text is not UTF-8 (a SQL_ASCII
        database): read by :func:`_session_id`, so an odd id never stops a run."""
        column = self._table.c.session_id
        if self._raw_encoding is not None:
            return sa.func.convert_to(sa.cast(column, sa.Text), self._raw_encoding,
                                      type_=sa.LargeBinary)
        return column

    def _in_keys(self) -> sa.ColumnElement[bool]:
        """``pk IN :keys``, the same statement for any number of keys (the server can keep
        its plan): PostgreSQL takes the keys as one array parameter."""
        pk = self._pk
        if self.dialect == "postgresql":
            return pk == sa.any_(sa.bindparam("keys", type_=sa_postgresql.ARRAY(pk.type)))
        return pk.in_(sa.bindparam("keys", expanding=True))

    def batches(self, after: Position, size: int, shard: Shard) -> Iterator[Batch]:
        pk = self._pk
        data = self._data_column().label("data")
        # With shards, the keys and session ids of the next size * N rows are read,
        # and the data of this shard's rows among them: two index-range queries.
        # Without shards, one query reads the next ``size`` rows whole.
        span = size * shard.count
        whole = shard.count == 1
        keys_query = sa.select(pk, self._session_column(), *([data] if whole else [])
                               ).order_by(pk).limit(span)
        data_query = sa.select(pk, self._session_column(), data).where(self._in_keys()).order_by(pk)
        last = after
        gaps = Gaps(after)  # ids missing between the keys read: rows committed late
        while True:
            page = keys_query if last is None else keys_query.where(pk > last)
            with self._engine.connect() as conn:
                found = conn.execute(page).all()
                keys = [row[0] for row in found]
                if keys != sorted(set(keys)) or (last is not None and keys and keys[0] <= last):
                    raise StoreError(f"{self.where}: the key {pk.name!r} did not advance after "
                                     f"{last!r}; stopping rather than reading rows twice")
                gaps.note(keys)
                if whole:
                    rows = found
                else:
                    mine = [key for key, sid in found if shard.holds(_session_id(sid))]
                    rows = conn.execute(data_query, {"keys": mine}).all() if mine else []
                conn.rollback()
            if not found:
                break
            last = keys[-1]
            yield Batch([Row((key,), _session_id(sid), _as_bytes(value))
                         for key, sid, value in rows], last)
        yield from self._catch_up(gaps, last, size, shard)

    def _catch_up(self, gaps: Gaps, last: Position, size: int, shard: Shard
                  ) -> Iterator[Batch]:
        """The final passes (``_catchup``): rows now in the gaps, and rows past ``last``."""
        pk = self._pk
        query = sa.select(pk, self._session_column(), self._data_column()).order_by(pk)
        for _ in range(PASSES):
            found = 0
            for chunk in gaps.chunks():
                with self._engine.connect() as conn:
                    got = conn.execute(query.where(sa.or_(
                        *(pk.between(low, high) if low > LOWEST else pk <= high
                          for low, high in chunk)))).all()
                    conn.rollback()
                gaps.fill({row[0] for row in got})
                found += len(got)
                mine = [Row((key,), _session_id(sid), _as_bytes(value)) for key, sid, value in got
                        if shard.holds(_session_id(sid))]
                if mine:
                    yield Batch(mine, last)
            while True:
                page = query.limit(size * shard.count)
                with self._engine.connect() as conn:
                    got = conn.execute(page if last is None else page.where(pk > last)).all()
                    conn.rollback()
                if not got:
                    break
                gaps.note([row[0] for row in got])
                found += len(got)
                last = got[-1][0]
                yield Batch([Row((key,), _session_id(sid), _as_bytes(value))
                             for key, sid, value in got if shard.holds(_session_id(sid))],
                            last)
            if not found:
                return

    def count_rows(self, shard: Shard) -> int:
        """The rows of the table (for a shard: its share), for a progress bar's total."""
        with self._engine.connect() as conn:
            total = int(conn.execute(sa.select(sa.func.count()).select_from(self._table))
                        .scalar_one())
            conn.rollback()
        return total if shard.count == 1 else -(-total // shard.count)

    def count_sessions(self, shard: Shard) -> int:
        """The sessions of ``shard`` that hold rows now (a resumed run's count)."""
        query = sa.select(self._session_column()).distinct()
        with self._engine.connect() as conn:
            found = conn.execution_options(yield_per=10_000).execute(query).scalars()
            count = sum(1 for session_id in found if shard.holds(_session_id(session_id)))
            conn.rollback()
        return count

    def session_rows(self, session_id: str) -> list[Row]:
        """Every row of one session, in key order."""
        table, pk = self._table, self._pk
        query = (sa.select(pk, self._data_column()).where(table.c.session_id == session_id)
                 .order_by(pk))
        with self._engine.connect() as conn:
            rows = conn.execute(query).all()
            conn.rollback()
        return [Row((key,), session_id, _as_bytes(data)) for key, data in rows]

    # -- writing ---------------------------------------------------------------

    def commit(self, changes: Sequence[Change], settle: Settle | None) -> list[bool]:
        if not changes and settle is None:
            return []
        with self._engine.begin() as conn:
            if self._fence is not None:  # the run's lock is still held (_sql_lock)
                self._fence(conn)
            written = self._swap(conn, changes) if changes else []
            if settle is not None:
                self._save_checkpoint(conn, settle(written))
        return written

    def _swap(self, conn: Connection, changes: Sequence[Change]) -> list[bool]:
        table, pk = self._table, self._pk
        ids = [change.row.key[0] for change in changes]
        if self.dialect == "sqlite":
            # Compared as bytes and written in the cell's own storage class: a BLOB cell
            # (which never equals TEXT in SQLite) stays a BLOB, TEXT stays TEXT.
            data = table.c.message_data
            new = sa.bindparam("new", type_=sa.LargeBinary)
            statement = (sa.update(table).where(pk == sa.bindparam("k"))
                         .where(sa.cast(data, sa.LargeBinary)
                                == sa.bindparam("old", type_=sa.LargeBinary))
                         .values(message_data=sa.case(
                             (sa.func.typeof(data) == "blob", sa.cast(new, sa.LargeBinary)),
                             else_=sa.cast(new, sa.Text))))
            return [conn.execute(statement, {"k": c.row.key[0], "old": c.row.value,
                                             "new": c.new}).rowcount == 1
                    for c in changes]
        current = dict(conn.execute(
            sa.select(pk, self._data_column()).where(self._in_keys())
            .with_for_update(skip_locked=True), {"keys": ids}).all())
        ok = [_as_bytes(current[c.row.key[0]]) == c.row.value if c.row.key[0] in current
              else False for c in changes]
        raw = self._raw_encoding
        todo = [{"k": c.row.key[0], "new": c.new if raw else c.new.decode()}
                for c, hit in zip(changes, ok, strict=True) if hit]
        if todo:
            conn.execute(sa.update(table).where(pk == sa.bindparam("k"))
                         .values(message_data=self._new_value()), todo)
        return ok

    def _new_value(self) -> sa.ColumnElement[Any]:
        """The new value's parameter: text, or (PostgreSQL, rows read as their bytes) the
        bytes turned back into the column's type without a change."""
        if self._raw_encoding is None:
            return sa.bindparam("new")
        column = self._table.c.message_data
        text = sa.func.convert_from(sa.bindparam("new", type_=sa.LargeBinary),
                                    self._raw_encoding, type_=sa.Text)
        return text if isinstance(column.type, sa.String) else sa.cast(text, column.type)

    def holds(self, changes: Sequence[Change]) -> list[bool]:
        if not changes:
            return []
        query = sa.select(self._pk, self._data_column()).where(self._in_keys())
        with self._engine.connect() as conn:
            current = dict(conn.execute(query, {"keys": [c.row.key[0] for c in changes]}).all())
            conn.rollback()
        return [c.row.key[0] in current and _as_bytes(current[c.row.key[0]]) == c.row.value
                for c in changes]

    def _ensure_checkpoints(self) -> None:
        try:
            self._checkpoints.create(self._engine, checkfirst=True)
        except sa.exc.DBAPIError:
            # Shards starting together race to create it (PostgreSQL reports the loser's
            # CREATE TABLE as a unique violation); the winner's table is as good.
            if not sa.inspect(self._engine).has_table(CHECKPOINT_TABLE):
                raise

    def _checkpoint_key(self, shard: Shard) -> dict[str, str]:
        return {"messages_table": self._messages_name, "shard": str(shard)}

    def prepare(self, shard: Shard) -> None:
        """Create the checkpoint table, and remember which shard's row to write."""
        self._ensure_checkpoints()
        self._shard = shard

    def _save_checkpoint(self, conn: Connection, checkpoint: Checkpoint) -> None:
        key = self._checkpoint_key(self._shard)
        state = checkpoint.dumps()
        table = self._checkpoints
        updated = conn.execute(sa.update(table).where(
            table.c.messages_table == key["messages_table"], table.c.shard == key["shard"])
            .values(state=state)).rowcount
        if not updated:
            conn.execute(sa.insert(table).values(state=state, **key))

    def forget_checkpoints(self) -> int:
        """Delete the checkpoints of every shard of this table, and its ``layouts`` row
        (``_sql_lock``); how many checkpoints there were. Refused (StoreRefusal) while
        a run holds a shard lock of the table."""
        if not sa.inspect(self._engine).has_table(CHECKPOINT_TABLE):
            return 0
        table = self._checkpoints
        mine = table.c.messages_table == self._messages_name
        with self._engine.begin() as conn:
            def delete() -> int:
                shards = conn.execute(sa.delete(table).where(
                    mine, table.c.shard != LAYOUTS)).rowcount
                conn.execute(sa.delete(table).where(mine, table.c.shard == LAYOUTS))
                return int(shards)

            if self.dialect == "sqlite":  # no advisory locks: its writes are serial
                return delete()
            locks = SqlLock(self.dialect, self._url.database or "", self._messages_name,
                            self.where)
            return locks.forget(conn, lambda: conn.execute(sa.select(table.c.state).where(
                mine, table.c.shard == LAYOUTS)).scalar_one_or_none(), delete)

    def count_checkpoints(self) -> int:
        """The checkpoints :meth:`forget_checkpoints` would delete (nothing is deleted)."""
        if not sa.inspect(self._engine).has_table(CHECKPOINT_TABLE):
            return 0
        table = self._checkpoints
        with self._engine.connect() as conn:
            count = conn.execute(sa.select(sa.func.count()).select_from(table).where(
                table.c.messages_table == self._messages_name, table.c.shard != LAYOUTS)
            ).scalar_one()
            conn.rollback()
        return int(count)

    def load_checkpoint(self, shard: Shard) -> Checkpoint | None:
        if not sa.inspect(self._engine).has_table(CHECKPOINT_TABLE):
            return None
        key = self._checkpoint_key(shard)
        table = self._checkpoints
        with self._engine.connect() as conn:
            state = conn.execute(sa.select(table.c.state).where(
                table.c.messages_table == key["messages_table"],
                table.c.shard == key["shard"])).scalar_one_or_none()
        return None if state is None else Checkpoint.loads(state)

    @contextmanager
    def lock(self, shard: Shard) -> Iterator[None]:
        if self.dialect == "sqlite":  # SQLite has no advisory locks; its writes are serial
            yield
            return
        self._ensure_checkpoints()
        locks = SqlLock(self.dialect, self._url.database or "", self._messages_name, self.where)
        table = self._checkpoints
        where = (table.c.messages_table == self._messages_name, table.c.shard == LAYOUTS)
        with self._engine.connect() as conn:
            def read() -> str | None:
                return conn.execute(sa.select(table.c.state).where(*where)).scalar_one_or_none()

            def write(state: str) -> None:
                if not conn.execute(sa.update(table).where(*where).values(state=state)).rowcount:
                    conn.execute(sa.insert(table).values(
                        messages_table=self._messages_name, shard=LAYOUTS, state=state))

            release, params = locks.acquire(conn, shard, read, write)
            halt: Callable[[], None] = lambda: None  # noqa: E731
            try:
                self._fence = locks.fence(conn, shard)
                halt = locks.keep_alive(conn)  # from here on, only its thread uses conn
                yield
            finally:
                self._fence = None
                halt()
                try:
                    conn.execute(release, params)
                    conn.commit()
                except sa.exc.DBAPIError:  # the connection is gone, and its lock with it
                    pass

    def row_key(self, key: Sequence[Any]) -> tuple[Any, ...]:
        return (int(key[0]),)

    def refuse_if_running(self) -> None:
        """Refuse (StoreRefusal) while a run holds a shard lock of this table (a restore
        waits until it ends). SQLite has no advisory locks: its writes are serial."""
        if self.dialect == "sqlite" or not sa.inspect(self._engine).has_table(CHECKPOINT_TABLE):
            return
        locks = SqlLock(self.dialect, self._url.database or "", self._messages_name, self.where)
        table = self._checkpoints
        with self._engine.connect() as conn:
            recorded = conn.execute(sa.select(table.c.state).where(
                table.c.messages_table == self._messages_name, table.c.shard == LAYOUTS)
            ).scalar_one_or_none()
            conn.rollback()
            locks.refuse_running(conn, recorded, "--restore")

    def close(self) -> None:
        if self._owns_engine:
            self._engine.dispose()


_PORTS = {"postgresql": 5432, "mysql": 3306}


def store_identity(url: sa.URL, table: str) -> str:
    """What names one table of one database, however its URL is written: a SQLite
    file's real path, or a server's backend, host, port and database (``localhost``
    as ``127.0.0.1``); and the table."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        return sqlite_identity(url.database or "", table)
    host = url.host or "localhost"
    host = "127.0.0.1" if host in ("localhost", "::1") else host.lower()
    return f"{backend}://{host}:{url.port or _PORTS.get(backend, 0)}/{url.database}#{table}"


def _session_id(value: Any) -> str:
    """A session id as read: text, or its bytes (``_session_column``) with any byte that is
    not UTF-8 kept as a surrogate escape, as a Redis key's."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def _as_bytes(data: Any) -> bytes | None:
    """A cell's bytes (None: NULL)."""
    if data is None:
        return None
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    return bytes(data)


def _register_sqlite_functions(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN


def _begin_immediate(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")
