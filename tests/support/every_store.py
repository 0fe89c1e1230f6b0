"""Every kind of store behind one face, for tests that make a promise over all of them.

``every_store(kind, tmp_path)`` yields an :class:`AnyStore` for PostgreSQL,
MariaDB, Redis, a ``sqlite:///`` URL, a ``SQLiteSession`` file and a JSONL file:
its ``target`` and ``options`` for the CLI, ``fill`` (the items of some
sessions, as the SDK writes them), ``rows`` (every row's exact bytes, by key),
``append`` (an agent adding items to a session) and ``change`` (an agent
rewriting one row).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .migrate_support import make_session_db
from .server_stores import RedisStore, SqlStore
from .services import mysql_database, postgres_database, redis_prefix

KINDS = ("postgresql", "mariadb", "redis", "sqlite-url", "sqlite-file", "jsonl")
FILE_KINDS = ("sqlite-file", "jsonl")
Item = dict[str, Any]


class AnyStore:
    """One store of ``kind``: see the module's docstring."""

    def __init__(self, kind: str, target: str, options: tuple[str, ...], inner: Any,
                 path: Path | None = None) -> None:
        self.kind, self.target, self.options = kind, target, options
        self.inner, self.path = inner, path

    def fill(self, sessions: dict[str, list[Item]]) -> None:
        if self.kind == "jsonl":
            assert self.path is not None
            with self.path.open("a", encoding="utf-8") as file:
                for items in sessions.values():
                    file.writelines(json.dumps(item) + "\n" for item in items)
        elif self.kind == "sqlite-file":
            assert self.path is not None
            make_session_db(self.path, sessions)
        else:
            self.inner.fill(sessions)

    append = fill  # an agent adding items: to new sessions or existing ones

    def rows(self) -> dict[tuple[Any, ...], bytes]:
        if self.kind == "jsonl":
            assert self.path is not None
            lines = self.path.read_bytes().split(b"\n")
            return {(n,): line for n, line in enumerate(lines[:-1], 1)}
        return dict(self.inner.rows())

    def change(self, key: tuple[Any, ...], value: bytes) -> None:
        """An agent rewrites one row (a JSONL line: rewritten in place)."""
        if self.kind == "jsonl":
            assert self.path is not None
            lines = self.path.read_bytes().split(b"\n")
            lines[key[0] - 1] = value
            self.path.write_bytes(b"\n".join(lines))
        elif self.kind == "redis":
            import redis

            client = redis.Redis.from_url(self.inner.url)
            try:
                client.lset(key[0], key[1], value)
            finally:
                client.close()
        else:
            self.inner.execute("UPDATE agent_messages SET message_data = :v WHERE id = :k",
                               {"v": value.decode(), "k": key[0]})


@contextmanager
def every_store(kind: str, tmp_path: Path) -> Iterator[AnyStore]:
    """A new, empty store of ``kind`` (a server store is skipped when unreachable)."""
    if kind == "postgresql":
        with postgres_database() as url:
            yield AnyStore(kind, url, (), SqlStore(url))
    elif kind == "mariadb":
        with mysql_database() as url:
            yield AnyStore(kind, url, (), SqlStore(url))
    elif kind == "redis":
        with redis_prefix() as (url, prefix):
            yield AnyStore(kind, url, ("--key-prefix", prefix, "--lock-ttl", "2"),
                           RedisStore(url, prefix))
    elif kind == "sqlite-url":
        path = tmp_path / "url.db"
        url = f"sqlite:///{path}"
        yield AnyStore(kind, url, (), SqlStore(url), path)
    elif kind == "sqlite-file":
        path = tmp_path / "sessions.db"
        yield AnyStore(kind, str(path), (), SqlStore(f"sqlite:///{path}"), path)
    else:
        path = tmp_path / "sessions.jsonl"
        path.touch()
        yield AnyStore(kind, str(path), (), None, path)
