"""``open_store``: the one way into the stores, for a path or a URL.

URL schemes are registered with :func:`register_store` (as alembic registers
an implementation per dialect): the SQL schemes open ``SQLAlchemySession``
tables, the Redis schemes ``RedisSession`` lists, and another package may
register more. A path is a JSONL file or a ``SQLiteSession`` database, told
apart by the file's first bytes; with ``encryption_key_env`` a SQLite file is
opened as the SQL store of ``EncryptedSession`` rows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from . import StoreError, StoreReport, StoreUnreachable
from ._options import MigrateOptions
from ._protocol import Row, ServerStore
from ._rows import RowOutcome
from ._urls import mask_url, scrub

__all__ = ["FileStore", "ForgetReport", "OnlineStore", "Store", "check_target", "open_store",
           "register_store", "registered_schemes"]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
# What to install when a driver is missing, by the module that is.
_EXTRAS = {"psycopg": "postgres", "psycopg2": "postgres", "pg8000": "postgres",
           "pymysql": "mysql", "MySQLdb": "mysql", "redis": "redis"}
_DEFAULT_DRIVERS = {"postgres": "psycopg", "mysql": "pymysql", "redis": "redis"}
_UNREACHABLE = re.compile(
    r"connection (?:refused|timed out|reset)|could not connect|can't connect|"
    r"could not translate host|name or service not known|no route to host|timeout expired|"
    r"server closed the connection|lost connection|network is unreachable|"
    r"temporary failure in name resolution|error (?:2003|2005|2006|2013)", re.IGNORECASE)


class ForgetReport(BaseModel):
    """What ``forget`` cleared: checkpoints in the store, records in the local state."""

    path: str
    checkpoints: int = 0
    local_records: int = 0

    @property
    def ok(self) -> bool:
        return True


class Store(Protocol):
    """An opened store: migrate it, restore it from backups, forget its migration state."""

    kind: str
    where: str  # for messages: a URL has its credentials masked

    def migrate(self) -> StoreReport: ...

    def restore(self, backups: Sequence[str]) -> Any: ...

    def forget(self) -> ForgetReport: ...

    def connect(self) -> ServerStore:
        """Row access (batches, compare-and-swap): server stores only."""
        ...


Opener = Callable[[str, MigrateOptions, Any], Store]
_OPENERS: dict[str, Opener] = {}


def register_store(*schemes: str) -> Callable[[Opener], Opener]:
    """Register ``opener(url, options, client)`` for the URL schemes ``schemes``."""
    def add(opener: Opener) -> Opener:
        for scheme in schemes:
            _OPENERS[scheme.lower()] = opener
        return opener

    return add


def registered_schemes() -> list[str]:
    return sorted(_OPENERS)


def url_scheme(target: str) -> str | None:
    """The scheme of a URL (``postgresql`` for ``postgresql+psycopg://``), None for a path."""
    match = _URL.match(target)
    return match.group(1).split("+", 1)[0].lower() if match else None


def open_store(target: str | os.PathLike[str], options: MigrateOptions | None = None, *,
               client: Any = None, engine: Any = None) -> Store:
    """The store ``target`` names: a path (JSONL, SQLite) or a URL of a registered scheme.

    ``client`` is an open connection to use instead of one made from the URL
    (a ``redis.Redis``), ``engine`` an application's own SQLAlchemy ``Engine``
    for a SQL URL (an ``AsyncEngine``'s ``sync_engine``, used inside SQLAlchemy's
    ``greenlet_spawn``): its pool, TLS and ``connect_args`` are used as they are,
    never rebuilt from the URL, and it is never disposed here. Raises
    :class:`StoreError` for a missing file, a scheme no store is registered for,
    or a store that cannot be opened.
    """
    options = options or MigrateOptions()
    text = os.fspath(target)
    scheme = url_scheme(text)
    if engine is not None:
        if client is not None:
            raise TypeError("open_store() takes client= or engine=, not both")
        if scheme not in SQL_SCHEMES:
            raise TypeError("open_store(engine=...) is for a SQL URL")
        client = _Engine(engine)
    if scheme is None:
        return _open_path(Path(text), options)
    opener = _OPENERS.get(scheme)
    if opener is None:
        raise StoreError(f"{mask_url(text)}: unsupported store URL scheme {scheme!r} "
                         f"(supported: {', '.join(registered_schemes())}, or a file path)")
    return opener(text, options, client)


def check_target(target: str | os.PathLike[str], options: MigrateOptions | None = None
                 ) -> None:
    """Refuse (:class:`StoreError`), opening nothing, what cannot be the store ``target``.

    A path must name a SQLite database or a JSON Lines file: not a missing
    file, a directory, or (with ``format`` ``auto``) a text file whose first
    line is not JSON. A URL must have a registered scheme, and only query
    options its driver takes (PostgreSQL, MySQL/MariaDB, SQLite and Redis
    URLs are checked; a missing driver is named with its extra). Nothing is
    connected to and nothing is written: :func:`open_store` and the run find
    the rest (tables, locks).
    """
    options = options or MigrateOptions()
    text = os.fspath(target)
    scheme = url_scheme(text)
    if scheme is None:
        path = Path(text)
        if file_kind(path, options.format) == "jsonl" and options.format == "auto":
            from .jsonl import not_json_line

            line = not_json_line(path)
            if line is not None:
                raise StoreError(f"{path}: a text file, not JSON Lines (line {line} is not "
                                 "JSON): give a JSONL file of items, a SQLite database or a "
                                 "store URL (--format jsonl reads it as JSON Lines all the "
                                 "same)")
        return
    if scheme not in _OPENERS:
        raise StoreError(f"{mask_url(text)}: unsupported store URL scheme {scheme!r} "
                         f"(supported: {', '.join(registered_schemes())}, or a file path)")
    try:
        if scheme in SQL_SCHEMES:
            from ._sqlalchemy import engine_url, unknown_url_options

            unknown = unknown_url_options(text)
            takes = f"the {engine_url(text).get_driver_name()} driver"
        elif scheme in REDIS_SCHEMES:
            from ._redis import unknown_url_options

            unknown, takes = unknown_url_options(text), "redis-py"
        else:
            return
    except ImportError as exc:
        raise classify(exc, text) from None
    if unknown:
        names = ", ".join(repr(name) for name in unknown)
        raise StoreError(f"{mask_url(text)}: unknown URL option{'s' * (len(unknown) > 1)} "
                         f"{names}: {takes} takes no such option")


def file_kind(path: Path, requested: str = "auto") -> str:
    """``jsonl`` or ``sqlite`` for an existing file; StoreError when it is neither."""
    from .sqlite import is_sqlite_file

    if not os.path.lexists(path):
        raise StoreError(f"{path}: no such file")
    if not path.exists():
        raise StoreError(f"{path}: no such file (a symbolic link to nothing)")
    if path.is_dir():
        raise StoreError(f"{path}: is a directory")
    if requested == "sqlite":
        return requested
    if is_sqlite_file(path):
        if requested == "jsonl":
            raise StoreError(f"{path}: is a SQLite database, not a JSONL file")
        return "sqlite"
    if requested == "auto" and path.suffix.lower() in SQLITE_SUFFIXES:
        raise StoreError(f"{path}: not a SQLite database")
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from None
    if b"\x00" in head:
        raise StoreError(f"{path}: neither a SQLite database nor a JSONL file")
    return "jsonl"


def _open_path(path: Path, options: MigrateOptions) -> Store:
    kind = file_kind(path, options.format)
    if options.encryption_key_env is not None:
        if kind != "sqlite":
            raise StoreError(f"{path}: --encryption-key-env needs a SQLite database or a "
                             "server store URL; this is a JSONL file")
        # EncryptedSession(SQLiteSession(...)) rows: the SQL store reads the same file.
        return OnlineStore(f"sqlite:///{path.resolve()}", options, _connect_sql, None,
                           where=str(path))
    return FileStore(path, kind, options)


class FileStore:
    """A JSONL file or a ``SQLiteSession`` database, migrated whole in one run."""

    def __init__(self, path: Path, kind: str, options: MigrateOptions) -> None:
        self.path, self.kind, self.options = path, kind, options
        self.where = str(path)

    def migrate(self) -> StoreReport:
        from .jsonl import migrate_jsonl
        from .sqlite import migrate_sqlite

        if self.kind == "sqlite":
            return migrate_sqlite(self.path, options=self.options)
        return migrate_jsonl(self.path, options=self.options)

    def restore(self, backups: Sequence[str]) -> Any:
        """A SQLite file's row backups (``UpgradingSession`` write-back, or a run through
        its ``sqlite:///`` URL) are restored through that URL; a migration's own backup
        of a file store is a whole copy, put back with mv."""
        from ._backup import read_backup

        if self.kind == "sqlite":
            try:
                for backup in backups:
                    read_backup(backup)
            except StoreError:
                pass
            else:
                return OnlineStore(f"sqlite:///{self.path.resolve()}", self.options,
                                   _connect_sql, None, where=str(self.path)).restore(backups)
        raise StoreError(f"{self.path}: the backup of a file store is a whole copy "
                         f"({self.path.name}.bak-<UTC time>): put it back with mv; --restore "
                         "is for server stores and for row backups (UpgradingSession's)")

    def forget(self) -> ForgetReport:
        return ForgetReport(path=self.where)  # a file store keeps no migration state

    def connect(self) -> ServerStore:
        raise StoreError(f"{self.path}: a file store is migrated whole; open a SQLite file "
                         "by its sqlite:/// URL for row access")


Connect = Callable[[str, MigrateOptions, Any], ServerStore]


class OnlineStore:
    """A server store (or an encrypted SQLite file), migrated online in batches."""

    kind = "server"

    def __init__(self, url: str, options: MigrateOptions, connect: Connect, client: Any,
                 *, where: str | None = None) -> None:
        self.url, self.options, self._connect, self._client = url, options, connect, client
        self.where = where or mask_url(url)

    def connect(self) -> ServerStore:
        """The store's rows (batches, compare-and-swap), through a new connection."""
        return connect(self.url, self.options, self._connect, self._client)

    def migrate(self) -> StoreReport:
        from ._online import run

        return run(self.url, self.options, self._connect)

    def migrate_with(self, rule: Callable[[Row], RowOutcome]) -> StoreReport:
        """One shard migrated with ``rule`` in place of the codec's per-row rule,
        through the same batches, backup, compare-and-swap and checkpoints (a
        floor to measure the codec's rule against)."""
        from ._online import _run_shard

        store = self.connect()
        try:
            return _run_shard(store, self.options, rule)
        finally:
            store.close()

    def restore(self, backups: Sequence[str]) -> Any:
        from ._online import restore

        return restore(self.url, self.options, self._connect, backups)

    def forget(self) -> ForgetReport:
        from ._online import forget

        return forget(self.url, self.options, self._connect)


def connect(url: str, options: MigrateOptions, factory: Connect, client: Any = None
            ) -> ServerStore:
    """``factory(url, options, client)``, its errors worded for the user, its URL masked."""
    try:
        store = factory(url, options, client)
    except StoreError as exc:
        raise classify(exc, url) from None
    store.where = mask_url(store.where)
    return store


def classify(exc: BaseException, url: str) -> StoreError:
    """A StoreError for ``exc``: unreachable, a missing driver, or as it is; no secrets."""
    cause = exc.__cause__ or exc.__context__ or exc
    message = re.sub(r"\s*\n\s*", " ", scrub(str(exc), url)).strip()  # one line
    if isinstance(cause, ImportError):
        module = (cause.name or "").split(".")[0]
        extra = _EXTRAS.get(module)
        if extra is not None:
            default = _DEFAULT_DRIVERS.get(extra)
            hint = (f"pip install 'handoff-codec[{extra}]'" if module == default else
                    f"install it, or pip install 'handoff-codec[{extra}]' for the driver "
                    f"{default!r}, used when the URL names none")
            return StoreError(f"{mask_url(url)}: the driver {module!r} is not installed: {hint}")
    if is_unreachable(cause):
        return StoreUnreachable(message)
    if isinstance(exc, StoreError):
        return type(exc)(message)
    return StoreError(message)


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server could not be reached (worth retrying later)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "AuthenticationError" in names or "AuthenticationWrongNumberOfArgsError" in names:
        return False
    if names & {"ConnectionError", "TimeoutError", "ConnectionRefusedError"}:
        return True
    orig = getattr(exc, "orig", None)
    return bool(_UNREACHABLE.search(f"{exc} {orig or ''}"))


SQL_SCHEMES = ("postgresql", "postgres", "mysql", "mariadb", "sqlite")
REDIS_SCHEMES = ("redis", "rediss", "unix")


def _sqlite_file(url: str) -> str | None:
    """The database file of a ``sqlite:///`` URL (None: in memory, or a URI)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0] if rest.startswith("/") else None
    return path or None


class _Engine:
    """An application's SQLAlchemy engine, as ``open_store(engine=...)`` was given it."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any) -> None:
        self.engine = engine


def _connect_sql(url: str, options: MigrateOptions, client: Any) -> ServerStore:
    if client is not None and not isinstance(client, _Engine):
        raise TypeError("open_store(client=...) takes a redis.Redis client only; "
                        "a SQL store takes engine=")
    from ._sqlalchemy import SQLAlchemyStore

    if client is not None:
        return SQLAlchemyStore(url, engine=client.engine, messages_table=options.messages_table,
                               sessions_table=options.sessions_table)
    if url_scheme(url) == "sqlite":
        path = _sqlite_file(url)
        if path and path != ":memory:" and not os.path.exists(path):
            raise StoreError(f"{path}: no such file")  # SQLite would create it
    return SQLAlchemyStore(url, messages_table=options.messages_table,
                           sessions_table=options.sessions_table)


def _connect_redis(url: str, options: MigrateOptions, client: Any) -> ServerStore:
    from ._redis import RedisStore

    return RedisStore(url, key_prefix=options.key_prefix, lock_ttl=options.lock_ttl,
                      client=client)


@register_store(*SQL_SCHEMES)
def _open_sql(url: str, options: MigrateOptions, client: Any) -> Store:
    return OnlineStore(url, options, _connect_sql, client)


@register_store(*REDIS_SCHEMES)
def _open_redis(url: str, options: MigrateOptions, client: Any) -> Store:
    return OnlineStore(url, options, _connect_redis, client)


def for_workers(options: MigrateOptions) -> MigrateOptions:
    """The options a worker process gets (no progress bar: it cannot be pickled)."""
    return replace(options, progress=None)
