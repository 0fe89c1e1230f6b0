"""The server backends: ``SQLAlchemySession`` tables and ``RedisSession`` lists.

Each is one :class:`~.base.Store` class registered for its URL schemes; both
are migrated online (``_online``) and differ only in how they reach their rows.
Their drivers are imported when a store is opened, never here.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from . import StoreError
from ._online import OnlineStore
from ._options import MigrateOptions
from ._protocol import ServerStore
from .base import register_store, url_scheme

__all__ = ["REDIS_SCHEMES", "SQL_SCHEMES", "Engine", "RedisListStore", "SQLAlchemyTableStore"]

SQL_SCHEMES = ("postgresql", "postgres", "mysql", "mariadb", "sqlite")
REDIS_SCHEMES = ("redis", "rediss", "unix")


class Engine:
    """An application's SQLAlchemy engine, as ``open_store(engine=...)`` was given it."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any) -> None:
        self.engine = engine


def _unknown_options(url: str, unknown: list[str], takes: str) -> None:
    if unknown:
        names = ", ".join(repr(name) for name in unknown)
        from ._urls import mask_url

        raise StoreError(f"{mask_url(url)}: unknown URL option{'s' * (len(unknown) > 1)} "
                         f"{names}: {takes} takes no such option")


def _sqlite_file(url: str) -> str | None:
    """The database file of a ``sqlite:///`` URL (None: in memory, or a URI)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0] if rest.startswith("/") else None
    return path or None


@register_store
class SQLAlchemyTableStore(OnlineStore):
    """``SQLAlchemySession`` tables (PostgreSQL, MySQL/MariaDB, SQLite), and a SQLite file
    of ``EncryptedSession`` rows opened through its ``sqlite:///`` URL."""

    schemes: ClassVar[tuple[str, ...]] = SQL_SCHEMES

    @classmethod
    def check_url(cls, url: str) -> None:
        from ._sqlalchemy import engine_url, unknown_url_options

        _unknown_options(url, unknown_url_options(url),
                         f"the {engine_url(url).get_driver_name()} driver")

    @classmethod
    def rows(cls, url: str, options: MigrateOptions, client: Any) -> ServerStore:
        if client is not None and not isinstance(client, Engine):
            raise TypeError("open_store(client=...) takes a redis.Redis client only; "
                            "a SQL store takes engine=")
        from ._sqlalchemy import SQLAlchemyStore

        if client is not None:
            return SQLAlchemyStore(url, engine=client.engine,
                                   messages_table=options.messages_table,
                                   sessions_table=options.sessions_table)
        if url_scheme(url) == "sqlite":
            path = _sqlite_file(url)
            if path and path != ":memory:" and not os.path.exists(path):
                raise StoreError(f"{path}: no such file")  # SQLite would create it
        return SQLAlchemyStore(url, messages_table=options.messages_table,
                               sessions_table=options.sessions_table)


@register_store
class RedisListStore(OnlineStore):
    """``RedisSession`` lists, one per session, under a key prefix."""

    schemes: ClassVar[tuple[str, ...]] = REDIS_SCHEMES

    @classmethod
    def check_url(cls, url: str) -> None:
        from ._redis import unknown_url_options

        _unknown_options(url, unknown_url_options(url), "redis-py")

    @classmethod
    def rows(cls, url: str, options: MigrateOptions, client: Any) -> ServerStore:
        from ._redis import RedisStore

        return RedisStore(url, key_prefix=options.key_prefix, lock_ttl=options.lock_ttl,
                          job_id=options.job_id,
                          client=client)
