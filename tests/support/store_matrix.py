"""Every kind of store ``migrate`` takes, made for one test, with a fingerprint of all it holds.

:func:`store_kinds` names them; :func:`made_store` makes one (a JSONL file, a
``SQLiteSession`` file, the same file by its ``sqlite:///`` URL, a PostgreSQL or
MariaDB database, a Redis key prefix) filled with legacy summaries through the
real SDK sessions, and yields a :class:`MadeStore`. Its :meth:`MadeStore.fingerprint`
hashes every row, the migration's own state (the checkpoint table of a SQL
database, the ``handoff-codec:migrate:{prefix}:*`` keys of Redis), and every file
under the test's folder (the store's file, backups, the local state directory):
two equal fingerprints mean the run wrote nothing anywhere.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .migrate_support import CRAFTED, PLAIN, make_session_db
from .server_stores import RedisStore, SqlStore, mixed_sessions
from .services import mysql_database, postgres_database, redis_prefix

FILE_KINDS = ("jsonl", "sqlite-file")
SERVER_KINDS = ("sqlite-url", "postgresql", "mariadb", "redis")


def store_kinds() -> tuple[str, ...]:
    return FILE_KINDS + SERVER_KINDS


@dataclass
class MadeStore:
    """A store made for a test: how to name it on the command line, and its contents."""

    kind: str
    target: str
    folder: Path  # every file the test's runs may write is under it
    options: list[str] = field(default_factory=list)  # --key-prefix for Redis
    rows: Callable[[], dict[Any, bytes]] = dict
    state: Callable[[], list[Any]] = list  # the migration's own tables or keys
    fill: Callable[[dict[str, list[dict[str, Any]]]], None] = lambda _: None

    @property
    def server(self) -> bool:
        return self.kind in SERVER_KINDS

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for key, value in sorted(self.rows().items(), key=lambda pair: repr(pair[0])):
            digest.update(repr(key).encode() + b"\0" + value + b"\0")
        digest.update(repr(self.state()).encode())
        for path in sorted(self.folder.rglob("*")):
            digest.update(str(path.relative_to(self.folder)).encode() + b"\0")
            if path.is_file():
                digest.update(path.read_bytes())
        return digest.hexdigest()


def _sql_state(url: str) -> list[Any]:
    """Every row of every table the migration made (its checkpoint table)."""
    import sqlalchemy as sa

    engine = sa.create_engine(SqlStore(url).sync_url)
    try:
        inspector = sa.inspect(engine)
        found: list[Any] = []
        with engine.connect() as conn:
            for table in sorted(inspector.get_table_names()):
                if table.startswith("agent_"):
                    continue
                quoted = engine.dialect.identifier_preparer.quote(table)
                rows = conn.execute(sa.text(f"SELECT * FROM {quoted}")).all()
                found.append((table, sorted(repr(tuple(row)) for row in rows)))
        return found
    finally:
        engine.dispose()


def _sql_rows(url: str) -> dict[Any, bytes]:
    """The messages rows and the sessions rows, as stored."""
    import sqlalchemy as sa

    rows = SqlStore(url).rows()
    engine = sa.create_engine(SqlStore(url).sync_url)
    try:
        with engine.connect() as conn:
            sessions = conn.execute(sa.text("SELECT * FROM agent_sessions")).all()
    finally:
        engine.dispose()
    rows[("sessions",)] = repr(sorted(repr(tuple(row)) for row in sessions)).encode()
    return rows


def _redis_keys(url: str, pattern: str) -> list[Any]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        found = []
        for key in sorted(client.scan_iter(match=pattern, count=1000)):
            kind = client.type(key)
            if kind == b"list":
                value: Any = client.lrange(key, 0, -1)
            elif kind == b"set":
                value = sorted(client.smembers(key))
            elif kind == b"hash":
                value = sorted(client.hgetall(key).items())
            else:
                value = client.get(key)
            found.append((key, kind, value))
        return found
    finally:
        client.close()


def _jsonl_rows(path: Path) -> dict[Any, bytes]:
    return {("file",): path.read_bytes()}


def _sqlite_file_rows(path: Path) -> dict[Any, bytes]:
    return {("file",): path.read_bytes()}


def legacy_sessions() -> dict[str, list[dict[str, Any]]]:
    """Sessions with legacy summaries (each kind of store gets the same)."""
    return mixed_sessions(4)


def more_legacy() -> dict[str, list[dict[str, Any]]]:
    """Rows added after a first run: what a later run (or a dry run) finds to do."""
    return {"late": [CRAFTED[0], PLAIN[0], CRAFTED[2]]}


@contextmanager
def made_store(kind: str, folder: Path) -> Iterator[MadeStore]:
    """A store of ``kind`` filled with :func:`legacy_sessions`; its files under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "jsonl":
        path = folder / "items.jsonl"

        def fill_jsonl(sessions: dict[str, list[dict[str, Any]]]) -> None:
            with path.open("a", encoding="utf-8") as file:
                for items in sessions.values():
                    for item in items:
                        file.write(json.dumps(item) + "\n")

        fill_jsonl(legacy_sessions())
        yield MadeStore(kind, str(path), folder, rows=lambda: _jsonl_rows(path),
                        fill=fill_jsonl)
        return
    if kind in ("sqlite-file", "sqlite-url"):
        path = folder / "sessions.db"
        make_session_db(path, legacy_sessions())
        url = f"sqlite:///{path}"
        if kind == "sqlite-file":
            yield MadeStore(kind, str(path), folder, rows=lambda: _sqlite_file_rows(path),
                            fill=lambda sessions: make_session_db(path, sessions))
        else:
            yield MadeStore(kind, url, folder, rows=lambda: _sql_rows(url),
                            state=lambda: _sql_state(url), fill=SqlStore(url).fill)
        return
    if kind in ("postgresql", "mariadb"):
        database = postgres_database if kind == "postgresql" else mysql_database
        with database() as url:
            store = SqlStore(url)
            store.fill(legacy_sessions())
            yield MadeStore(kind, url, folder, rows=lambda: _sql_rows(url),
                            state=lambda: _sql_state(url), fill=store.fill)
        return
    assert kind == "redis", kind
    with redis_prefix() as (url, prefix):
        redis_store = RedisStore(url, prefix)
        redis_store.fill(legacy_sessions())
        yield MadeStore(kind, url, folder, ["--key-prefix", prefix],
                        rows=lambda: {key: repr(value).encode() for key, value in
                                      enumerate(_redis_keys(url, f"{prefix}:*"))},
                        state=lambda: _redis_keys(url, f"handoff-codec:migrate:{prefix}:*"),
                        fill=redis_store.fill)
