"""``UpgradingSession`` under the real ``Runner``, around each SDK session store."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Runner, SQLiteSession

from handoff_codec.integrations.openai_agents import UpgradingSession
from handoff_codec.migrate import migrate_item
from tests.support.migrate_support import CRAFTED, PLAIN, ROOT, require_legacy_reader
from tests.support.server_stores import run_migrate
from tests.support.services import mysql_database, postgres_database, redis_prefix

sys.path.insert(0, str(ROOT / "examples"))
from scripted_model import ScriptedModel, text

LEGACY = CRAFTED[0]
CANONICAL = migrate_item(LEGACY).item
Factory = Callable[[], Any]


@contextmanager
def _inner(kind: str, tmp_path: Path) -> Iterator[tuple[Callable[[], Any], tuple[str, ...],
                                                     Any]]:
    """Yields a factory of async context managers that open the inner session, the store
    for ``handoff-codec migrate`` (a URL or path, and its options), and its raw rows."""
    if kind == "sqlite-session":
        @asynccontextmanager
        async def sqlite_session() -> AsyncIterator[Any]:
            session = SQLiteSession("s", tmp_path / "s.db")
            try:
                yield session
            finally:
                session.close()

        from tests.support.server_stores import SqlStore

        yield sqlite_session, (str(tmp_path / "s.db"),), SqlStore(
            f"sqlite:///{tmp_path / 's.db'}").rows
        return
    if kind == "redis":
        from tests.support.server_stores import RedisStore

        with redis_prefix() as (url, prefix):
            @asynccontextmanager
            async def redis_session() -> AsyncIterator[Any]:
                import redis.asyncio as aioredis
                from agents.extensions.memory import RedisSession

                client = aioredis.Redis.from_url(url)
                try:
                    yield RedisSession("s", redis_client=client, key_prefix=prefix)
                finally:
                    await client.aclose()

            yield redis_session, (url, "--key-prefix", prefix), RedisStore(url, prefix).rows
        return
    from tests.support.server_stores import SqlStore

    places = {"postgresql": postgres_database, "mysql": mysql_database}
    with places[kind]() if kind in places else _sqlite_url(tmp_path) as url:
        store = SqlStore(url)

        @asynccontextmanager
        async def sql_session() -> AsyncIterator[Any]:
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(store.async_url)
            try:
                yield store._sessions(engine, "s")
            finally:
                await engine.dispose()

        yield sql_session, (url,), store.rows


@contextmanager
def _sqlite_url(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path / 'alchemy.db'}"


async def _fill(open_inner: Any, key: str | None) -> None:
    from agents.extensions.memory import EncryptedSession

    async with open_inner() as inner:
        session: Any = EncryptedSession("s", inner, key, ttl=3600) if key else inner
        await session.add_items([PLAIN[0], LEGACY])


async def _scenario(open_inner: Any, *, write_back: bool, key: str | None,
                    backup: Path | None = None) -> tuple[Any, ...]:
    from agents.extensions.memory import EncryptedSession

    def wrap(inner: Any) -> Any:
        return EncryptedSession("s", inner, key, ttl=3600) if key else inner

    model = ScriptedModel([[text("fine", msg_id="m1")]])
    agent = Agent(name="assistant", model=model)
    async with open_inner() as inner:
        session = UpgradingSession(wrap(inner), write_back=write_back, backup_file=backup)
        await Runner.run(agent, "next question", session=session)
        session.close_write_back()
    async with open_inner() as inner:
        stored = await wrap(inner).get_items()
    return model.calls[0].input, stored


def _key() -> str:
    from cryptography.fernet import Fernet

    return Fernet.generate_key().decode()


KINDS = ["sqlite-session", "sqlalchemy-sqlite", "postgresql", "mysql", "redis"]


@pytest.mark.parametrize("write_back", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_runner_sees_canonical_summaries_and_a_restore_undoes_the_write_back(
        kind: str, write_back: bool, tmp_path: Path) -> None:
    require_legacy_reader()
    backup = tmp_path / "read-repair.jsonl" if write_back else None
    with _inner(kind, tmp_path) as (open_inner, target, rows):
        asyncio.run(_fill(open_inner, None))
        before = rows()
        sent, stored = asyncio.run(_scenario(open_inner, write_back=write_back, key=None,
                                             backup=backup))
        contents = [item.get("content") for item in sent]
        assert CANONICAL["content"] in contents and LEGACY["content"] not in contents
        assert stored[:2] == [PLAIN[0], CANONICAL if write_back else LEGACY]
        assert stored[2]["content"] == "next question" and len(stored) == 4
        if backup is None:
            return
        restored = run_migrate(*target, "--restore", str(backup), check_code=0)
        assert restored["restored"] == 1 and restored["changed_since"] == 0
        after = rows()
        assert {key: after[key] for key in before} == before  # the turn added since stays
        assert len(after) == len(before) + 2


@pytest.mark.parametrize("kind", ["postgresql", "redis"])
def test_encrypted_session_write_back(kind: str, tmp_path: Path) -> None:
    require_legacy_reader()
    key = _key()
    backup = tmp_path / "read-repair.jsonl"
    with _inner(kind, tmp_path) as (open_inner, target, rows):
        asyncio.run(_fill(open_inner, key))
        before = rows()
        sent, stored = asyncio.run(_scenario(open_inner, write_back=True, key=key,
                                             backup=backup))
        assert CANONICAL["content"] in [item.get("content") for item in sent]
        assert stored[:2] == [PLAIN[0], CANONICAL] and len(stored) == 4
        assert b"user: hi" not in backup.read_bytes()  # envelopes only: no plaintext
        run_migrate(*target, "--restore", str(backup), check_code=0)
        after = rows()
        assert {k: after[k] for k in before} == before


def test_write_back_needs_a_backup_file(tmp_path: Path) -> None:
    inner = SQLiteSession("s", tmp_path / "s.db")
    try:
        with pytest.raises(ValueError, match="backup_file=PATH"):
            UpgradingSession(inner, write_back=True)
        with pytest.raises(ValueError, match="write_back=True"):
            UpgradingSession(inner, backup_file=tmp_path / "b.jsonl")
    finally:
        inner.close()


def test_sessions_share_one_read_repair_backup_file(tmp_path: Path) -> None:
    """Two sessions, one after the other, append to the same file; a record cut short by
    a process stopped mid-write is cut off before the next session appends."""
    require_legacy_reader()
    from handoff_codec.migrate.stores import read_backup

    db = tmp_path / "s.db"
    backup = tmp_path / "read-repair.jsonl"

    async def read_back(session_id: str) -> None:
        inner = SQLiteSession(session_id, db)
        try:
            await inner.add_items([PLAIN[0], LEGACY])  # type: ignore[list-item]
            session = UpgradingSession(inner, write_back=True, backup_file=backup)
            await session.get_items()
            session.close_write_back()
        finally:
            inner.close()

    asyncio.run(read_back("a"))
    with backup.open("ab") as file:
        file.write(b'{"key": [9], "session_id": "x", "old": "cut')
    asyncio.run(read_back("b"))
    read = read_backup(backup)
    assert [r.session_id for r in read.records] == ["a", "b"] and read.torn is None
    restored = run_migrate(str(db), "--restore", str(backup), check_code=0)
    assert restored["restored"] == 2


def test_write_back_on_an_unsupported_session_is_refused_up_front(tmp_path: Path) -> None:
    inner = SQLiteSession("s")  # in memory: no other connection can reach its rows
    try:
        with pytest.raises(TypeError, match="write_back"):
            UpgradingSession(inner, write_back=True, backup_file=tmp_path / "b.jsonl")
        assert UpgradingSession(inner).session_id == "s"
    finally:
        inner.close()
