"""Server stores for tests, filled and read back through the real Agents SDK sessions.

``SqlStore`` wraps a ``SQLAlchemySession`` database (PostgreSQL, MariaDB,
SQLite), ``RedisStore`` a ``RedisSession`` key prefix. Both give the raw rows
(for byte comparisons) and the SDK's own ``get_items()``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from handoff_codec.migrate import migrate_item

from .migrate_support import CRAFTED, NONCANONICAL_CURRENT, PLAIN, UNREADABLE, fixture_summaries

Item = dict[str, Any]
T = TypeVar("T")
_ASYNC = {"postgresql": "postgresql+psycopg", "mysql": "mysql+aiomysql",
          "sqlite": "sqlite+aiosqlite"}


def mixed_sessions(count: int = 6) -> dict[str, list[Item]]:
    """Sessions of plain items, legacy summaries, a non-canonical and an unreadable one."""
    summaries = [summary for _, _, summary in fixture_summaries()] + CRAFTED
    sessions: dict[str, list[Item]] = {}
    for n in range(count):
        items: list[Item] = list(PLAIN)
        items += summaries[n::count]
        items += [NONCANONICAL_CURRENT, UNREADABLE] if n % 2 else [PLAIN[0]]
        sessions[f"session-{n}"] = items
    return sessions


def expected_items(items: Iterable[Item]) -> list[Item]:
    """What the SDK should read back after a migration: each summary canonical."""
    return [migrate_item(item).item for item in items]


def checksum(rows: dict[Any, bytes]) -> str:
    digest = hashlib.sha256()
    for key in sorted(rows):
        digest.update(repr(key).encode() + b"\0" + rows[key] + b"\0")
    return digest.hexdigest()


def _run(factory: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(factory())  # type: ignore[arg-type]


class SqlStore:
    """A ``SQLAlchemySession`` database at ``url`` (a sync URL: postgresql://, mysql://...)."""

    def __init__(self, url: str, *, messages_table: str = "agent_messages",
                 sessions_table: str = "agent_sessions") -> None:
        import sqlalchemy as sa

        self.url = url
        parsed = sa.make_url(url)
        backend = parsed.get_backend_name()
        self.backend = backend
        self.async_url = parsed.set(drivername=_ASYNC[backend])
        sync = {"postgresql": "postgresql+psycopg", "mysql": "mysql+pymysql"}.get(backend)
        self.sync_url = parsed.set(drivername=sync) if sync else parsed
        self.tables = {"messages_table": messages_table, "sessions_table": sessions_table}

    def _sessions(self, engine: Any, session_id: str) -> Any:
        from agents.extensions.memory import SQLAlchemySession

        if self.backend == "mysql":
            self._mysql_tables()
        return SQLAlchemySession(session_id, engine=engine,
                                 create_tables=self.backend != "mysql", **self.tables)

    def _mysql_tables(self) -> None:
        # The SDK's create_tables=True cannot create its VARCHAR without a length on
        # MySQL; production creates the same schema through its own migrations.
        sessions, messages = self.tables["sessions_table"], self.tables["messages_table"]
        self.execute(f"CREATE TABLE IF NOT EXISTS {sessions} (session_id VARCHAR(255) "
                     "PRIMARY KEY, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
                     "updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)")
        self.execute(f"CREATE TABLE IF NOT EXISTS {messages} (id INTEGER PRIMARY KEY "
                     "AUTO_INCREMENT, session_id VARCHAR(255) NOT NULL, message_data TEXT NOT "
                     "NULL, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
                     f"INDEX idx_{messages}_session_time (session_id, created_at), "
                     f"FOREIGN KEY (session_id) REFERENCES {sessions} (session_id) "
                     "ON DELETE CASCADE)")

    async def _with_engine(self, work: Callable[[Any], Awaitable[T]]) -> T:
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(self.async_url)
        try:
            return await work(engine)
        finally:
            await engine.dispose()

    def fill(self, sessions: dict[str, list[Item]]) -> None:
        async def work(engine: Any) -> None:
            for session_id, items in sessions.items():
                await self._sessions(engine, session_id).add_items(items)

        _run(lambda: self._with_engine(work))

    def get_items(self, session_id: str) -> list[Item]:
        async def work(engine: Any) -> list[Item]:
            return list(await self._sessions(engine, session_id).get_items())

        return _run(lambda: self._with_engine(work))

    def rows(self) -> dict[tuple[Any, ...], bytes]:
        """Every message row, exactly as stored, keyed as the migration keys it."""
        import sqlalchemy as sa

        engine = sa.create_engine(self.sync_url)
        table = self.tables["messages_table"]
        quoted = engine.dialect.identifier_preparer.quote(table)
        column = {"mysql": "CAST(message_data AS BINARY)",
                  "sqlite": "CAST(message_data AS BLOB)"}.get(self.backend, "message_data")
        try:
            with engine.connect() as conn:
                result = conn.execute(sa.text(f"SELECT id, {column} FROM {quoted}")).all()
        finally:
            engine.dispose()
        return {(key,): value.encode() if isinstance(value, str) else bytes(value)
                for key, value in result}

    def execute(self, statement: str, params: Any = None) -> None:
        import sqlalchemy as sa

        engine = sa.create_engine(self.sync_url)
        try:
            with engine.begin() as conn:
                conn.execute(sa.text(statement), params or {})
        finally:
            engine.dispose()

    def bulk(self, rows: list[tuple[str, str]]) -> None:
        """Append many (session id, JSON text) rows quickly: COPY on PostgreSQL, else one
        prepared INSERT for all rows (multi-row VALUES on MySQL)."""
        import sqlalchemy as sa

        session_ids = sorted({sid for sid, _ in rows})
        self.get_items(session_ids[0])  # the SDK creates its tables
        engine = sa.create_engine(self.sync_url)
        sessions, messages = self.tables["sessions_table"], self.tables["messages_table"]
        try:
            with engine.begin() as conn:
                conn.execute(sa.text(f"INSERT INTO {sessions} (session_id) VALUES (:s)"),
                             [{"s": s} for s in session_ids])
                cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
                if self.backend == "postgresql":
                    with cursor.copy(f"COPY {messages} (session_id, message_data) FROM STDIN"
                                     ) as copy:
                        for row in rows:
                            copy.write_row(row)
                else:
                    mark = "?" if self.backend == "sqlite" else "%s"
                    cursor.executemany(f"INSERT INTO {messages} (session_id, message_data) "
                                       f"VALUES ({mark}, {mark})", rows)
                cursor.close()
        finally:
            engine.dispose()


class RedisStore:
    """The ``RedisSession`` keys under ``prefix`` at ``url``."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix

    async def _with_client(self, work: Callable[[Any], Awaitable[T]]) -> T:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(self.url)
        try:
            return await work(client)
        finally:
            await client.aclose()

    def _session(self, client: Any, session_id: str) -> Any:
        from agents.extensions.memory import RedisSession

        return RedisSession(session_id, redis_client=client, key_prefix=self.prefix)

    def fill(self, sessions: dict[str, list[Item]]) -> None:
        async def work(client: Any) -> None:
            for session_id, items in sessions.items():
                await self._session(client, session_id).add_items(items)

        _run(lambda: self._with_client(work))

    def get_items(self, session_id: str) -> list[Item]:
        async def work(client: Any) -> list[Item]:
            return list(await self._session(client, session_id).get_items())

        return _run(lambda: self._with_client(work))

    def rows(self) -> dict[tuple[Any, ...], bytes]:
        import redis

        client = redis.Redis.from_url(self.url)
        try:
            found: dict[tuple[Any, ...], bytes] = {}
            for key in client.scan_iter(match=f"{self.prefix}:*:messages", _type="list"):
                for index, value in enumerate(client.lrange(key, 0, -1)):
                    found[(bytes(key), index)] = bytes(value)
            return found
        finally:
            client.close()

    def bulk(self, rows: list[tuple[str, str]]) -> None:
        """Append many (session id, JSON text) rows, in order, as ``RedisSession`` does."""
        import redis

        lists: dict[str, list[str]] = {}
        for sid, text in rows:
            lists.setdefault(f"{self.prefix}:{sid}:messages", []).append(text)
        client = redis.Redis.from_url(self.url)
        try:
            pipe = client.pipeline(transaction=False)
            for key, values in lists.items():
                for start in range(0, len(values), 1000):
                    pipe.rpush(key, *values[start:start + 1000])
            pipe.execute()
        finally:
            client.close()


def run_migrate(*args: str, check_code: int | None = None, process: bool = False
                ) -> dict[str, Any]:
    """``handoff-codec migrate ARGS --json``: its JSON report.

    Run by ``main()`` in this process, or with ``process`` in a new one (for a
    run beside an application's own process, or one that spawns workers).
    """
    from .migrate_support import run_cli, run_cli_here

    run = run_cli if process else run_cli_here
    result = run(*args, "--json", check_code=check_code)
    assert result.stdout, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def check_migration_cycle(store: SqlStore | RedisStore, url: str, backup: str,
                          *options: str) -> dict[str, Any]:
    """Dry run, real run, second run and restore, each checked against the SDK's reads."""
    sessions = mixed_sessions()
    store.fill(sessions)
    before = store.rows()

    dry = run_migrate(url, "--dry-run", *options, check_code=1)
    assert store.rows() == before and checksum(store.rows()) == checksum(before)
    assert dry["would_migrate"] > 0 and dry["untouched"] > 0 and not dry["written"]

    real = run_migrate(url, "--backup-file", backup, *options, check_code=1)
    assert real["migrated"] == dry["would_migrate"] and real["changed_under_us"] == 0
    for session_id, items in sessions.items():
        assert store.get_items(session_id) == expected_items(items)
    after = store.rows()
    assert after.keys() == before.keys()
    changed = {key for key in before if before[key] != after[key]}
    for key in changed:  # a changed row is exactly the migrated item
        migrated = migrate_item(json.loads(before[key]))
        assert migrated.changed and json.loads(after[key]) == migrated.item
    assert len(changed) == real["migrated"]

    again = run_migrate(url, "--backup-file", backup + ".2", *options, check_code=1)
    assert again["migrated"] == 0 and again["already_current"] >= real["migrated"]
    assert store.rows() == after

    restored = run_migrate(url, "--restore", backup, *options, check_code=0)
    assert restored["restored"] == len(changed) and restored["changed_since"] == 0
    assert store.rows() == before
    return real


def bulk_rows(rows: int, *, legacy_every: int = 5, sessions: int = 50) -> list[tuple[str, str]]:
    """``rows`` (session id, JSON text) rows over ``sessions`` sessions, in the SDK's compact
    JSON style; every ``legacy_every``-th a legacy summary, the others plain items with ids."""
    summaries = [json.dumps(summary, separators=(",", ":"))
                 for summary in [s for _, _, s in fixture_summaries()] + CRAFTED]
    # A plain item with an "id" key added last, as dict(item) | {"id": ...} is written.
    heads = [json.dumps(item, separators=(",", ":"))[:-1] + ',"id":"item-' for item in PLAIN]
    out: list[tuple[str, str]] = []
    for n in range(rows):
        if n % legacy_every == 0:
            text = summaries[(n // legacy_every) % len(summaries)]
        else:
            text = f'{heads[n % len(heads)]}{n}"}}'
        out.append((f"session-{n % sessions}", text))
    return out


def counts(report: dict[str, Any]) -> dict[str, Any]:
    """The totals of a report that must not depend on how a run was split or resumed."""
    keys = ("rows_scanned", "items_scanned", "summaries_found", "migrated", "already_current",
            "untouched", "invalid_rows", "changed_under_us", "formats", "migrated_by_format")
    return {key: report[key] for key in keys}
