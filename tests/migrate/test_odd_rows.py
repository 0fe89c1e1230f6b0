"""Odd rows never stop a run and never change a byte.

A NULL ``message_data``, a Redis session id that is not UTF-8, ``json`` and
``jsonb`` columns, a PostgreSQL ``SQL_ASCII`` database and a MariaDB ``latin1``
column: each row is migrated byte-exactly (its bytes as the server gives them)
or reported and left as it is, by a dry run, a run, a ``--resume`` and a
restore alike. And read-repair shares one backup file between agents that name
one Redis server differently.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from handoff_codec.migrate import migrate_item
from tests.support.migrate_support import CRAFTED, PLAIN, require_legacy_reader, run_cli_here
from tests.support.server_stores import RedisStore, SqlStore, run_migrate
from tests.support.services import (
    POSTGRES,
    mysql_database,
    postgres_database,
    redis_prefix,
    unavailable,
)

LEGACY = CRAFTED[0]
CANONICAL = migrate_item(LEGACY).item
# A legacy summary that says "é" (as UTF-8 in the row, unescaped).
ACCENTED = {**CRAFTED[1], "content": CRAFTED[1]["content"].replace("line two", "ligne d\u00e9ux")}


def _rows(url: str, column: str = "message_data") -> dict[int, bytes | None]:
    """Every row's bytes as stored (None: NULL)."""
    import sqlalchemy as sa

    store = SqlStore(url)
    read = {"mysql": f"CAST({column} AS BINARY)", "sqlite": f"CAST({column} AS BLOB)",
            "postgresql": f"convert_to({column}::text, current_setting('server_encoding'))"}
    engine = sa.create_engine(store.sync_url, connect_args=(
        {"client_encoding": "utf8"} if store.backend == "postgresql" else {}))
    try:
        with engine.connect() as conn:
            found = conn.execute(sa.text(
                f"SELECT id, {read[store.backend]} FROM agent_messages")).all()
    finally:
        engine.dispose()
    return {key: None if value is None else bytes(value) if not isinstance(value, str)
            else value.encode() for key, value in found}


def _cycle(url: str, tmp_path: Path, *, expect: int, options: tuple[str, ...] = ()
           ) -> tuple[dict[Any, Any], dict[str, Any]]:
    """A dry run, a run, a --resume and a restore: each exits ``expect`` (the restore 0),
    never with an unexpected error; the rows before, and the run's report."""
    before = _rows(url)
    dry = run_cli_here(url, "--dry-run", "--json", *options)
    assert dry.returncode == expect and "error" not in json.loads(dry.stdout), dry.stderr
    assert _rows(url) == before
    backup = tmp_path / f"b-{uuid.uuid4().hex[:6]}.jsonl"
    real = run_migrate(url, "--backup-file", str(backup), *options, check_code=expect)
    resumed = run_cli_here(url, "--resume", "--backup-file", str(backup), "--json", *options)
    assert resumed.returncode == expect, resumed.stderr
    assert "error" not in json.loads(resumed.stdout), resumed.stderr
    after = _rows(url)
    run_migrate(url, "--restore", str(backup), *options, check_code=0)
    assert _rows(url) == before
    return after, real


@contextmanager
def _sqlite_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'sessions.db'}"


@pytest.mark.parametrize("where", ["postgresql", "mariadb", "sqlite-url"])
def test_a_null_message_data_is_reported_and_left_as_it_is(where: str, tmp_path: Path) -> None:
    require_legacy_reader()
    place = {"postgresql": postgres_database, "mariadb": mysql_database}.get(where)
    with place() if place else _sqlite_url(tmp_path) as url:
        store = SqlStore(url)
        if where == "sqlite-url":
            import sqlite3

            conn = sqlite3.connect(tmp_path / "sessions.db")
            conn.executescript(
                "CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP "
                "DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);"
                "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id "
                "TEXT NOT NULL, message_data TEXT, created_at TIMESTAMP DEFAULT "
                "CURRENT_TIMESTAMP);")
            conn.close()
        store.fill({"s": [LEGACY, PLAIN[0], CRAFTED[2]]})
        if where == "postgresql":
            store.execute("ALTER TABLE agent_messages ALTER COLUMN message_data DROP NOT NULL")
        elif where == "mariadb":
            store.execute("ALTER TABLE agent_messages MODIFY message_data TEXT NULL")
        store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', NULL)")
        after, report = _cycle(url, tmp_path, expect=1)
        assert report["migrated"] == 2 and report["untouched"] == 1
        assert [row["reason"] for row in report["untouched_rows"]] == ["message_data is NULL"]
        assert sorted(after.values(), key=repr)[0] is None  # the NULL row stays NULL


def test_a_redis_session_id_that_is_not_utf8_is_migrated(tmp_path: Path) -> None:
    require_legacy_reader()
    with redis_prefix() as (url, prefix):
        import redis

        client = redis.Redis.from_url(url)
        odd = prefix.encode() + b":caf\xe9:messages"
        client.rpush(odd, json.dumps(LEGACY), json.dumps(PLAIN[0]))
        RedisStore(url, prefix).fill({"s": [LEGACY]})
        before = {key: client.lrange(key, 0, -1) for key in (odd,)}
        backup = tmp_path / "b.jsonl"
        report = run_migrate(url, "--key-prefix", prefix, "--backup-file", str(backup),
                             check_code=0)
        assert report["migrated"] == 2 and report["sessions"] == 2, report
        assert json.loads(client.lindex(odd, 0)) == CANONICAL  # type: ignore[arg-type]
        assert client.lindex(odd, 1) == before[odd][1]
        run_migrate(url, "--key-prefix", prefix, "--restore", str(backup), check_code=0)
        assert client.lrange(odd, 0, -1) == before[odd]
        client.close()


@pytest.mark.parametrize("column", ["json", "jsonb"])
def test_json_and_jsonb_columns_are_migrated(column: str, tmp_path: Path) -> None:
    require_legacy_reader()
    with postgres_database() as url:
        store = SqlStore(url)
        store.execute("CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY)")
        store.execute("INSERT INTO agent_sessions VALUES ('s')")
        store.execute(f"CREATE TABLE agent_messages (id SERIAL PRIMARY KEY, session_id TEXT "
                      f"NOT NULL, message_data {column} NOT NULL)")
        for item in (LEGACY, PLAIN[0], ACCENTED):
            store.execute(f"INSERT INTO agent_messages (session_id, message_data) VALUES "
                          f"('s', CAST(:m AS {column}))", {"m": json.dumps(item)})
        after, report = _cycle(url, tmp_path, expect=0)
        assert report["migrated"] == 2 and report["untouched"] == 0
        values = [json.loads(after[key]) for key in sorted(after)]  # type: ignore[arg-type]
        assert values == [CANONICAL, PLAIN[0], migrate_item(ACCENTED).item]


@contextmanager
def _sql_ascii_database() -> Iterator[str]:
    try:
        import psycopg
    except ImportError:
        unavailable("psycopg is not installed")
    import sqlalchemy as sa

    admin = sa.make_url(POSTGRES).set(drivername="postgresql")
    try:
        conn = psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True,
                               connect_timeout=3)
    except psycopg.Error as exc:
        unavailable(f"PostgreSQL is not reachable: {exc}")
    name = "handoff_test_" + uuid.uuid4().hex[:12]
    with conn:
        conn.execute(f"CREATE DATABASE \"{name}\" ENCODING 'SQL_ASCII' TEMPLATE template0 "
                     "LC_COLLATE 'C' LC_CTYPE 'C'")
        try:
            yield sa.make_url(POSTGRES).set(database=name).render_as_string(hide_password=False)
        finally:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _Utf8Client:
    """SQL statements on a PostgreSQL database through a UTF-8 client encoding."""

    def __init__(self, url: str) -> None:
        self.url = SqlStore(url).sync_url

    def execute(self, statement: str, params: Any = None) -> None:
        import sqlalchemy as sa

        engine = sa.create_engine(self.url, connect_args={"client_encoding": "utf8"})
        try:
            with engine.begin() as conn:
                conn.execute(sa.text(statement), params or {})
        finally:
            engine.dispose()


def test_a_sql_ascii_database_is_migrated_byte_exactly(tmp_path: Path) -> None:
    require_legacy_reader()
    with _sql_ascii_database() as url:
        store = _Utf8Client(url)
        store.execute("CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY)")
        store.execute("INSERT INTO agent_sessions VALUES ('s')")
        store.execute("CREATE TABLE agent_messages (id SERIAL PRIMARY KEY, session_id TEXT "
                      "NOT NULL, message_data TEXT NOT NULL)")
        rows = [json.dumps(LEGACY).encode(), json.dumps(ACCENTED, ensure_ascii=False).encode(),
                json.dumps(PLAIN[0]).encode().replace(b"Oslo", b"Oslo \xe9t\xe9"),  # latin1
                json.dumps(CRAFTED[2]).encode()]
        for data in rows:
            store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', "
                          "convert_from(:m, 'SQL_ASCII'))", {"m": data})
        after, report = _cycle(url, tmp_path, expect=1)
        assert report["migrated"] == 3 and report["invalid_rows"] == 1, report
        assert after[3] == rows[2]  # not UTF-8: left as it is, byte for byte
        assert json.loads(after[2]) == migrate_item(ACCENTED).item  # type: ignore[arg-type]
        assert b"d\xc3\xa9ux" in after[2]  # type: ignore[operator]  # its bytes, as written


def test_a_sql_ascii_session_id_that_is_not_utf8_never_stops_a_run(tmp_path: Path) -> None:
    require_legacy_reader()
    with _sql_ascii_database() as url:
        store = _Utf8Client(url)
        store.execute("CREATE TABLE agent_messages (id SERIAL PRIMARY KEY, session_id TEXT "
                      "NOT NULL, message_data TEXT NOT NULL)")
        rows = [json.dumps(LEGACY).encode(), json.dumps(CRAFTED[2]).encode(),
                json.dumps(PLAIN[0]).encode()]
        for number, data in enumerate(rows * 2):
            store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ("
                          "convert_from(:s, 'SQL_ASCII'), convert_from(:m, 'SQL_ASCII'))",
                          {"s": b"caf\xe9" if number % 2 else b"s", "m": data})
        before = _rows(url)
        workers = run_cli_here(url, "--dry-run", "--workers", "2", "--json")
        assert workers.returncode in (0, 1) and "error" not in json.loads(workers.stdout)
        after, report = _cycle(url, tmp_path, expect=0)
        assert report["migrated"] >= 1, report
        assert after != before


def test_a_latin1_column_is_never_read_as_utf8(tmp_path: Path) -> None:
    require_legacy_reader()
    with mysql_database() as url:
        store = SqlStore(url)
        store.execute("CREATE TABLE agent_sessions (session_id VARCHAR(255) PRIMARY KEY)")
        store.execute("INSERT INTO agent_sessions VALUES ('s')")
        store.execute("CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTO_INCREMENT, "
                      "session_id VARCHAR(255) NOT NULL, message_data TEXT CHARACTER SET "
                      "latin1 NOT NULL)")
        # The second row's bytes are valid UTF-8 ("é" as C3 A9), which in latin1 reads "Ã©".
        rows = [json.dumps(LEGACY).encode(), json.dumps(ACCENTED, ensure_ascii=False).encode()]
        for data in rows:
            store.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', "
                          ":m)", {"m": data})
        after, report = _cycle(url, tmp_path, expect=1)
        assert report["migrated"] == 1 and report["invalid_rows"] == 1, report
        assert after[2] == rows[1]
        assert "latin1" in report["untouched_rows"][0]["reason"]


def test_read_repair_shares_one_backup_between_names_of_one_redis(tmp_path: Path) -> None:
    require_legacy_reader()
    pytest.importorskip("agents")
    from agents.extensions.memory import RedisSession

    from handoff_codec.integrations.openai_agents import UpgradingSession

    with redis_prefix() as (url, prefix):
        RedisStore(url, prefix).fill({"a": [LEGACY], "b": [LEGACY, PLAIN[0]]})
        backup = tmp_path / "read-repair.jsonl"

        async def read(host: str, session_id: str) -> list[Any]:
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(url.replace("127.0.0.1", host))
            try:
                session = UpgradingSession(RedisSession(session_id, redis_client=client,
                                                        key_prefix=prefix),
                                           write_back=True, backup_file=backup)
                return list(await session.get_items())
            finally:
                await client.aclose()

        assert asyncio.run(read("localhost", "a")) == [CANONICAL]
        assert asyncio.run(read("127.0.0.1", "b")) == [CANONICAL, PLAIN[0]]
        assert RedisStore(url, prefix).get_items("b")[0] == CANONICAL  # written back
        run_migrate(url, "--key-prefix", prefix, "--restore", str(backup), check_code=0)
        assert RedisStore(url, prefix).get_items("a") == [LEGACY]
        assert RedisStore(url, prefix).get_items("b") == [LEGACY, PLAIN[0]]
